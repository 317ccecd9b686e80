// The arithmetic of node IPAM (upstream's range allocator): the cluster CIDR cut into
// slices of one prefix length, one slice per node, the lowest free one first. Pure
// functions, unit-tested.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

// "10.42.3.0/24"; nullopt for anything else (IPv6 included) or a network with host bits set.
std::optional<Ipv4Cidr> parse_ipv4_cidr(std::string_view text);
std::string to_string(const Ipv4Cidr& cidr);

// The lowest /`mask` slice of `cluster` whose network is not in `used`; nullopt when all are.
std::optional<Ipv4Cidr> first_free_slice(const Ipv4Cidr& cluster, int mask,
                                         const std::set<uint32_t>& used);

// Whether `slice` is a /`mask` slice of `cluster` (what the allocator could have handed out).
bool is_slice_of(const Ipv4Cidr& slice, const Ipv4Cidr& cluster, int mask);

}  // namespace k3c::controllers

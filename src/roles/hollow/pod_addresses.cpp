// Pod IPs from each hollow node's pod CIDR (see pod_addresses.h).
#include "roles/hollow/pod_addresses.h"

#include "roles/controllers/nodeipam/cidr_slices.h"

namespace k3c::hollow {

namespace {

using controllers::Ipv4Cidr;
using controllers::parse_ipv4_cidr;

std::string ipv4_text(uint32_t address) {
  std::string text = controllers::to_string(Ipv4Cidr{address, 32});
  return text.substr(0, text.find('/'));
}

}  // namespace

bool address_in(std::string_view ip, std::string_view cidr) {
  const std::optional<Ipv4Cidr> address = parse_ipv4_cidr(std::string(ip) + "/32");
  const std::optional<Ipv4Cidr> net = parse_ipv4_cidr(cidr);
  if (!address || !net) return false;
  const uint32_t mask = net->prefix == 0 ? 0 : ~uint32_t{0} << (32 - net->prefix);
  return (address->network & mask) == net->network;
}

Result<std::string> PodAddresses::assign(const std::string& node, const std::string& cidr,
                                         const std::string& uid) {
  const std::optional<Ipv4Cidr> net = parse_ipv4_cidr(cidr);
  if (!net || net->prefix > 30) {
    return error(Code::kInvalid, "node " + node + ": pod CIDR " + cidr +
                                     " is not an IPv4 network with room for pods");
  }
  std::lock_guard lock(mu_);
  if (auto held = by_uid_.find(uid); held != by_uid_.end()) {
    return ipv4_text(held->second.address);
  }
  std::set<uint32_t>& used = in_use_[node];
  const uint32_t last = net->network + ((uint64_t{1} << (32 - net->prefix)) - 2);
  for (uint32_t address = net->network + 2; address <= last; ++address) {
    if (used.count(address)) continue;
    used.insert(address);
    by_uid_[uid] = Held{node, address};
    return ipv4_text(address);
  }
  return error(Code::kServiceUnavailable, "node " + node + ": no free address in " + cidr);
}

void PodAddresses::release(const std::string& uid) {
  std::lock_guard lock(mu_);
  auto held = by_uid_.find(uid);
  if (held == by_uid_.end()) return;
  in_use_[held->second.node].erase(held->second.address);
  by_uid_.erase(held);
}

size_t PodAddresses::size() const {
  std::lock_guard lock(mu_);
  return by_uid_.size();
}

}  // namespace k3c::hollow

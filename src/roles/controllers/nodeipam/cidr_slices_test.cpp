#include "roles/controllers/nodeipam/cidr_slices.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

TEST_CASE("IPv4 CIDRs parse strictly and print back") {
  auto c = parse_ipv4_cidr("10.42.3.0/24");
  REQUIRE(c);
  CHECK(c->network == 0x0a2a0300);
  CHECK(c->prefix == 24);
  CHECK(to_string(*c) == "10.42.3.0/24");
  CHECK(to_string(*parse_ipv4_cidr("0.0.0.0/0")) == "0.0.0.0/0");
  for (const char* bad : {"10.42.3.1/24", "10.42.3.0", "10.42.3/24", "10.42.3.0/33", "256.0.0.0/8",
                          "010.42.3.0/24", "10.42.3.0/24x", "fd00::/64", "", "a.b.c.d/8"}) {
    INFO(bad);
    CHECK_FALSE(parse_ipv4_cidr(bad));
  }
}

TEST_CASE("Nodes get the lowest free slice of the cluster CIDR") {
  Ipv4Cidr cluster = *parse_ipv4_cidr("10.42.0.0/16");
  std::set<uint32_t> used;
  auto first = first_free_slice(cluster, 24, used);
  REQUIRE(first);
  CHECK(to_string(*first) == "10.42.0.0/24");
  used = {0x0a2a0000, 0x0a2a0100, 0x0a2a0300};
  CHECK(to_string(*first_free_slice(cluster, 24, used)) == "10.42.2.0/24");
  // A /30 cut into /31s has two slices; both used: none left.
  Ipv4Cidr tiny = *parse_ipv4_cidr("192.168.0.0/30");
  CHECK(to_string(*first_free_slice(tiny, 31, {})) == "192.168.0.0/31");
  CHECK(to_string(*first_free_slice(tiny, 31, {0xc0a80000})) == "192.168.0.2/31");
  CHECK_FALSE(first_free_slice(tiny, 31, {0xc0a80000, 0xc0a80002}));
  CHECK_FALSE(first_free_slice(cluster, 8, {}));  // a slice larger than the cluster

  CHECK(is_slice_of(*parse_ipv4_cidr("10.42.7.0/24"), cluster, 24));
  CHECK_FALSE(is_slice_of(*parse_ipv4_cidr("10.43.7.0/24"), cluster, 24));
  CHECK_FALSE(is_slice_of(*parse_ipv4_cidr("10.42.7.0/25"), cluster, 24));
}

}  // namespace
}  // namespace k3c::controllers

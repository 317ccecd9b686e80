// Pod IPs from a node's pod CIDR: lowest free first, .0/.1/broadcast skipped, held per uid.
#include "roles/hollow/pod_addresses.h"

#include <catch2/catch.hpp>

namespace k3c::hollow {
namespace {

TEST_CASE("addresses come from the node's range, lowest free first, one per pod") {
  PodAddresses addresses;
  CHECK(*addresses.assign("n0", "10.42.3.0/24", "a") == "10.42.3.2");
  CHECK(*addresses.assign("n0", "10.42.3.0/24", "b") == "10.42.3.3");
  CHECK(*addresses.assign("n0", "10.42.3.0/24", "a") == "10.42.3.2");  // held
  CHECK(*addresses.assign("n1", "10.42.4.0/24", "c") == "10.42.4.2");  // per node
  addresses.release("a");
  CHECK(*addresses.assign("n0", "10.42.3.0/24", "d") == "10.42.3.2");  // reused
  CHECK(addresses.size() == 3);
}

TEST_CASE("a full range and a bad CIDR are errors") {
  PodAddresses addresses;
  // A /30 has .0 (network), .1 (gateway), .2, .3 (broadcast): room for one pod.
  CHECK(*addresses.assign("n0", "10.0.0.0/30", "a") == "10.0.0.2");
  auto full = addresses.assign("n0", "10.0.0.0/30", "b");
  REQUIRE_FALSE(full.is_ok());
  CHECK(full.status().code() == Code::kServiceUnavailable);
  CHECK(addresses.assign("n0", "fd00::/64", "c").status().code() == Code::kInvalid);
  CHECK(addresses.assign("n0", "10.0.0.1/24", "c").status().code() == Code::kInvalid);
}

TEST_CASE("address_in tells whether an IP is inside a CIDR") {
  CHECK(address_in("10.42.3.17", "10.42.3.0/24"));
  CHECK_FALSE(address_in("10.42.4.17", "10.42.3.0/24"));
  CHECK_FALSE(address_in("garbage", "10.42.3.0/24"));
}

}  // namespace
}  // namespace k3c::hollow

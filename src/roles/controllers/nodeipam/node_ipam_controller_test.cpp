// NodeIpamController's reconcile against the fake API: recorded writes.
#include "roles/controllers/nodeipam/node_ipam_controller.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

using testing::ControllerHarness;

TEST_CASE("node IPAM patches the lowest free slice into nodes without one") {
  ControllerHarness h;
  h.api.seed("/api/v1/nodes",
             {{"metadata", {{"name", "a"}}},
              {"spec", {{"podCIDR", "10.42.0.0/24"}, {"podCIDRs", {"10.42.0.0/24"}}}}});
  h.api.seed("/api/v1/nodes", {{"metadata", {{"name", "b"}}}});
  h.api.seed("/api/v1/nodes", {{"metadata", {{"name", "c"}}}});
  ControllerManagerSettings settings;
  NodeIpamController controller(h.ctx, settings);
  auto running = h.start(controller);
  REQUIRE(running);
  REQUIRE(ControllerHarness::eventually([&] {
    return !h.api.object("/api/v1/nodes/b")["spec"].is_null() &&
           !h.api.object("/api/v1/nodes/c")["spec"].is_null();
  }));
  std::vector<std::string> patched;
  for (const auto& a : h.api.actions()) {
    if (a.verb != "PATCH" || a.path.rfind("/api/v1/nodes", 0) != 0) continue;
    patched.push_back(a.path + " " + a.body["spec"]["podCIDR"].get<std::string>());
    CHECK(a.body["spec"]["podCIDRs"] == json::array({a.body["spec"]["podCIDR"]}));
  }
  std::sort(patched.begin(), patched.end());
  // One patch per node; the two get different slices (the order between them is the queue's).
  REQUIRE(patched.size() == 2);
  std::set<std::string> cidrs = {patched[0].substr(patched[0].find(' ') + 1),
                                 patched[1].substr(patched[1].find(' ') + 1)};
  CHECK(cidrs == std::set<std::string>{"10.42.1.0/24", "10.42.2.0/24"});
  CHECK(patched[0].rfind("/api/v1/nodes/b ", 0) == 0);
  CHECK(patched[1].rfind("/api/v1/nodes/c ", 0) == 0);
}

TEST_CASE("node IPAM reports an exhausted cluster CIDR instead of patching") {
  ControllerHarness h;
  h.api.seed("/api/v1/nodes",
             {{"metadata", {{"name", "a"}}}, {"spec", {{"podCIDR", "10.42.0.0/24"}}}});
  h.api.seed("/api/v1/nodes", {{"metadata", {{"name", "b"}}}});
  ControllerManagerSettings settings;
  settings.cluster_cidr = {0x0a2a0000, 24};  // room for one /24 only
  NodeIpamController controller(h.ctx, settings);
  auto running = h.start(controller);
  REQUIRE(running);
  CHECK(ControllerHarness::eventually([&] {
    for (const auto& a : h.api.actions()) {
      if (a.verb == "POST" && a.body.is_object() &&
          a.body.value("reason", "") == "CIDRNotAvailable") {
        return true;
      }
    }
    return false;
  }));
  for (const auto& a : h.api.actions()) {
    CHECK_FALSE((a.verb == "PATCH" && a.path.rfind("/api/v1/nodes", 0) == 0));
  }
}

TEST_CASE("node IPAM gives a deleted node's slice to the next node") {
  ControllerHarness h;
  h.api.seed("/api/v1/nodes",
             {{"metadata", {{"name", "a"}}}, {"spec", {{"podCIDR", "10.42.0.0/24"}}}});
  h.api.seed("/api/v1/nodes", {{"metadata", {{"name", "b"}}}});
  ControllerManagerSettings settings;
  settings.cluster_cidr = {0x0a2a0000, 23};  // room for two /24s
  NodeIpamController controller(h.ctx, settings);
  auto running = h.start(controller);
  REQUIRE(running);
  auto pod_cidr = [&](const std::string& node) {
    json spec = h.api.object("/api/v1/nodes/" + node)["spec"];
    return spec.is_object() ? spec.value("podCIDR", "") : "";
  };
  REQUIRE(ControllerHarness::eventually([&] { return pod_cidr("b") == "10.42.1.0/24"; }));
  REQUIRE(client::remove(h.ctx.client, client::resources::kNodes, "", "a", {}).is_ok());
  REQUIRE(client::create(h.ctx.client, client::resources::kNodes, "",
                         json{{"metadata", {{"name", "c"}}}})
              .is_ok());
  CHECK(ControllerHarness::eventually([&] { return pod_cidr("c") == "10.42.0.0/24"; }));
}

}  // namespace
}  // namespace k3c::controllers

#include "roles/controllers/daemonset/daemon_rolling.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

using Strings = std::vector<std::string>;

NodeDaemonPods old_only(const std::string& node, bool available = true) {
  NodeDaemonPods n;
  n.node = node;
  n.old_pod = DaemonPodState{"old-" + node, available};
  return n;
}
NodeDaemonPods new_only(const std::string& node, bool available) {
  NodeDaemonPods n;
  n.node = node;
  n.new_pod = DaemonPodState{"new-" + node, available};
  return n;
}

TEST_CASE("daemon rolling bounds") {
  json ds = {{"spec", {{"updateStrategy", {{"type", "RollingUpdate"}}}}}};
  auto b = daemon_bounds(ds, 10);
  CHECK(b.max_unavailable == 1);
  CHECK(b.max_surge == 0);
  CHECK_FALSE(allows_surge(ds));
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxUnavailable", "25%"}, {"maxSurge", 0}};
  CHECK(daemon_bounds(ds, 10).max_unavailable == 3);  // rounded up, as upstream
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxUnavailable", 0}, {"maxSurge", "10%"}};
  b = daemon_bounds(ds, 10);
  CHECK(b.max_unavailable == 0);
  CHECK(b.max_surge == 1);
  CHECK(allows_surge(ds));
  ds["spec"]["updateStrategy"]["rollingUpdate"] = {{"maxUnavailable", 0}, {"maxSurge", 0}};
  CHECK(daemon_bounds(ds, 10).max_unavailable == 1);
  json on_delete = {{"spec", {{"updateStrategy", {{"type", "OnDelete"}}}}}};
  CHECK_FALSE(allows_surge(on_delete));
}

TEST_CASE("without surge, old pods go while few nodes are down") {
  SECTION("one at a time") {
    auto plan = plan_rolling_update({old_only("a"), old_only("b"), old_only("c")}, {0, 1});
    CHECK(plan.delete_pods == Strings{"old-a"});
    CHECK(plan.create_on_nodes.empty());
  }
  SECTION("a new pod not yet available holds the rollout") {
    auto plan = plan_rolling_update({new_only("a", false), old_only("b"), old_only("c")}, {0, 1});
    CHECK(plan.delete_pods.empty());
  }
  SECTION("an unavailable old pod is replaced at once") {
    auto plan =
        plan_rolling_update({new_only("a", false), old_only("b", false), old_only("c")}, {0, 1});
    CHECK(plan.delete_pods == Strings{"old-b"});
  }
  SECTION("a node without its pod counts as down") {
    NodeDaemonPods empty;
    empty.node = "a";
    auto plan = plan_rolling_update({empty, old_only("b"), old_only("c")}, {0, 2});
    CHECK(plan.delete_pods == Strings{"old-b"});
  }
}

TEST_CASE("with surge, new pods start beside old ones") {
  SECTION("up to maxSurge nodes at once") {
    auto plan = plan_rolling_update({old_only("a"), old_only("b"), old_only("c")}, {2, 0});
    CHECK(plan.create_on_nodes == Strings{"a", "b"});
    CHECK(plan.delete_pods.empty());
  }
  SECTION("the old pod goes once the new one is available") {
    NodeDaemonPods both = old_only("a");
    both.new_pod = DaemonPodState{"new-a", true};
    NodeDaemonPods waiting = old_only("b");
    waiting.new_pod = DaemonPodState{"new-b", false};
    auto plan = plan_rolling_update({both, waiting, old_only("c")}, {1, 0});
    CHECK(plan.delete_pods == Strings{"old-a"});
    CHECK(plan.create_on_nodes.empty());  // b uses the one surge slot
  }
}

}  // namespace
}  // namespace k3c::controllers

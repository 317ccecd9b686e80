// The whole pipeline: decisions, the node sample, and the unschedulable messages exactly as
// upstream's scheduler writes them.
#include <catch2/catch.hpp>
#include <set>

#include "roles/scheduler/scheduler.h"
#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using json = nlohmann::json;

// schedule(), then preemption's message when nothing fits: what the condition would say.
std::string message_for(const Snapshot& s, const PodPtr& pod) {
  ScheduleResult r = schedule(s, *pod);
  REQUIRE_FALSE(r.scheduled());
  PreemptionResult p = preempt(s, *pod, r.diagnosis);
  REQUIRE_FALSE(p.found());
  return fit_error_message(s.size(), r.diagnosis, p.message);
}

TEST_CASE("messages: taints and resources, preemption not helpful") {
  Snapshot s;
  for (const char* n : {"server-1", "server-2"}) {
    s.add_node(
        NodeBuilder(n).taint("node-role.kubernetes.io/control-plane", "", "NoSchedule").build());
  }
  s.add_node(NodeBuilder("worker").allocatable("cpu", "2").build());
  CHECK(message_for(s, PodBuilder("p").request("cpu", "3").build()) ==
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint "
        "{node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 "
        "Preemption is not helpful for scheduling.");
}

TEST_CASE("messages: no lower-priority pods to preempt") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  REQUIRE(
      s.add_pod(PodBuilder("big").node("n").request("cpu", "3").request("memory", "7Gi").build())
          .is_ok());
  CHECK(message_for(s, PodBuilder("p").request("cpu", "2").request("memory", "2Gi").build()) ==
        "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. preemption: 0/1 nodes "
        "are available: 1 No preemption victims found for incoming pod.");
}

TEST_CASE("messages: counts are sorted as text, as upstream does") {
  Snapshot s;
  for (int i = 0; i < 10; ++i)
    s.add_node(NodeBuilder("cordoned-" + std::to_string(i)).unschedulable().build());
  s.add_node(NodeBuilder("a").label("disk", "hdd").build());
  s.add_node(NodeBuilder("b").label("disk", "hdd").build());
  CHECK(message_for(s, PodBuilder("p").spec("nodeSelector", {{"disk", "ssd"}}).build()) ==
        "0/12 nodes are available: 10 node(s) were unschedulable, 2 node(s) didn't match Pod's "
        "node affinity/selector. preemption: 0/12 nodes are available: 12 Preemption is not "
        "helpful for scheduling.");
}

TEST_CASE("messages: a PreFilter rejection stands alone") {
  Snapshot s;
  s.add_node(NodeBuilder("a").build());
  s.add_node(NodeBuilder("b").build());
  PodPtr p =
      PodBuilder("p")
          .spec("volumes", {{{"name", "v"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}})
          .build();
  CHECK(message_for(s, p) ==
        "0/2 nodes are available: persistentvolumeclaim \"data\" not found. preemption: 0/2 nodes "
        "are available: 2 Preemption is not helpful for scheduling.");
}

TEST_CASE("messages: preemptionPolicy Never, and an empty cluster") {
  Snapshot s;
  s.add_node(NodeBuilder("n").allocatable("pods", "0").build());
  CHECK(message_for(s, PodBuilder("p").spec("preemptionPolicy", "Never").build()) ==
        "0/1 nodes are available: 1 Too many pods. preemption: not eligible due to "
        "preemptionPolicy=Never.");
  Snapshot empty;
  ScheduleResult r = schedule(empty, *PodBuilder("p").build());
  CHECK_FALSE(r.scheduled());
  CHECK(fit_error_message(0, r.diagnosis) == "no nodes available to schedule pods");
}

TEST_CASE("decisions follow the scores") {
  Snapshot s;
  s.add_node(NodeBuilder("busy").build());
  s.add_node(NodeBuilder("idle").build());
  s.add_node(NodeBuilder("soft-tainted").taint("spot", "", "PreferNoSchedule").build());
  REQUIRE(s.add_pod(PodBuilder("x").node("busy").request("cpu", "3").build()).is_ok());
  ScheduleResult r = schedule(s, *PodBuilder("p").request("cpu", "1").build());
  CHECK(r.node == "idle");
  CHECK(r.feasible_nodes == 3);
  CHECK(r.evaluated_nodes == 3);
  // TaintToleration's weight (3) outweighs free resources: a full node without the soft
  // taint (300 + 47 + 50) beats an empty one with it (0 + 86 + 87).
  s.remove_node("idle");
  CHECK(schedule(s, *PodBuilder("p").request("cpu", "1").build()).node == "busy");
}

TEST_CASE("a nominated node that fits is taken directly") {
  Snapshot s;
  s.add_node(NodeBuilder("a").build());
  s.add_node(NodeBuilder("b").build());
  PodBuilder p("p");
  p.raw()["status"]["nominatedNodeName"] = "b";
  CHECK(schedule(s, *p.build()).node == "b");
}

TEST_CASE("percentageOfNodesToScore: upstream's adaptive sample") {
  CHECK(num_feasible_nodes_to_find(0, 50) == 50);
  CHECK(num_feasible_nodes_to_find(0, 100) == 100);
  CHECK(num_feasible_nodes_to_find(0, 1000) == 420);
  CHECK(num_feasible_nodes_to_find(0, 5000) == 500);
  CHECK(num_feasible_nodes_to_find(0, 20000) == 1000);
  CHECK(num_feasible_nodes_to_find(10, 500) == 100);
  CHECK(num_feasible_nodes_to_find(100, 5000) == 5000);

  Snapshot s;
  for (int i = 0; i < 300; ++i) s.add_node(NodeBuilder("n" + std::to_string(i)).build());
  ScheduleOptions options;
  options.start_index = 250;
  ScheduleResult r = schedule(s, *PodBuilder("p").build(), options);
  CHECK(r.evaluated_nodes == 144);  // 300 * (50 - 2)% = 144
  CHECK(r.feasible_nodes == 144);
  CHECK(r.next_start_index == (250 + 144) % 300);
}

TEST_CASE("ties: the same inputs give the same node, different pods spread") {
  Snapshot s;
  for (int i = 0; i < 8; ++i) s.add_node(NodeBuilder("n" + std::to_string(i)).build());
  PodPtr p = PodBuilder("p").build();
  CHECK(schedule(s, *p).node == schedule(s, *p).node);
  std::set<std::string> chosen;
  for (int i = 0; i < 40; ++i)
    chosen.insert(schedule(s, *PodBuilder("p" + std::to_string(i)).build()).node);
  CHECK(chosen.size() > 3);
}

TEST_CASE("a spread deployment lands across zones") {
  Snapshot s;
  for (int i = 0; i < 6; ++i) {
    s.add_node(NodeBuilder("n" + std::to_string(i)).label("zone", i < 3 ? "a" : "b").build());
  }
  json c = {{"maxSkew", 1},
            {"topologyKey", "zone"},
            {"whenUnsatisfiable", "DoNotSchedule"},
            {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}};
  std::map<std::string, int> per_zone;
  for (int i = 0; i < 10; ++i) {
    PodBuilder b("web-" + std::to_string(i));
    b.label("app", "web").spec("topologySpreadConstraints", json::array({c}));
    PodPtr pod = b.build();
    ScheduleResult r = schedule(s, *pod);
    REQUIRE(r.scheduled());
    per_zone[s.find(r.node)->node().labels.at("zone")]++;
    b.node(r.node);
    REQUIRE(s.add_pod(b.build()).is_ok());  // the cache assumes the pod
  }
  CHECK(per_zone["a"] == 5);
  CHECK(per_zone["b"] == 5);
}

}  // namespace
}  // namespace k3c::scheduler

// Preemption: which pods become victims, which node is nominated, and when it cannot help.
#include <catch2/catch.hpp>

#include "roles/scheduler/scheduler.h"
#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using json = nlohmann::json;

PreemptionResult preemption_run(const Snapshot& s, const PodPtr& pod) {
  ScheduleResult r = schedule(s, *pod);
  REQUIRE_FALSE(r.scheduled());
  return preempt(s, *pod, r.diagnosis);
}

std::vector<std::string> names(const std::vector<PodPtr>& pods) {
  std::vector<std::string> out;
  for (const PodPtr& p : pods) out.push_back(p->name);
  return out;
}

void add(Snapshot& s, const std::string& name, const std::string& node, int priority,
         const char* cpu = "1", const char* start = "2026-01-01T00:00:00Z") {
  REQUIRE(s.add_pod(PodBuilder(name)
                        .node(node)
                        .priority(priority)
                        .request("cpu", cpu)
                        .start_time(start)
                        .label("app", name)
                        .build())
              .is_ok());
}

PodPtr incoming(int priority, const char* cpu = "2") {
  return PodBuilder("urgent").priority(priority).request("cpu", cpu).build();
}

TEST_CASE("victims: the fewest, least important pods that make room") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  add(s, "p1", "n", 1);
  add(s, "p2", "n", 2);
  add(s, "p3", "n", 3);
  PreemptionResult r = preemption_run(s, incoming(10));
  CHECK(r.nominated_node == "n");
  CHECK(names(r.victims) == std::vector<std::string>{"p1"});
  CHECK(r.message.empty());
  // The snapshot is not changed by the dry run.
  CHECK(s.find("n")->pods().size() == 3);
}

TEST_CASE("pods of equal or higher priority are never victims") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  add(s, "same", "n", 5, "3");
  PreemptionResult r = preemption_run(s, incoming(5));
  CHECK_FALSE(r.found());
  CHECK(r.message ==
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
}

TEST_CASE("removing every lower-priority pod is not enough: the filter's reason is reported") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  add(s, "low", "n", 1, "1");
  add(s, "high", "n", 100, "2");
  PreemptionResult r = preemption_run(s, incoming(10, "3"));
  CHECK_FALSE(r.found());
  CHECK(r.message == "preemption: 0/1 nodes are available: 1 Insufficient cpu.");
}

TEST_CASE("node choice: lowest highest victim priority, then sum, then count, then start time") {
  SECTION("lowest highest priority") {
    Snapshot s;
    s.add_node(NodeBuilder("a").build());
    s.add_node(NodeBuilder("b").build());
    add(s, "a-low", "a", 2, "3");
    add(s, "b-low", "b", 1, "3");
    CHECK(preemption_run(s, incoming(10)).nominated_node == "b");
  }
  SECTION("smallest sum of priorities") {
    Snapshot s;
    s.add_node(NodeBuilder("a").build());
    s.add_node(NodeBuilder("b").build());
    add(s, "a1", "a", 1, "1500m");
    add(s, "a2", "a", 1, "1500m");
    add(s, "b1", "b", 1, "3");
    PreemptionResult r = preemption_run(s, incoming(10, "3"));
    CHECK(r.nominated_node == "b");
    CHECK(names(r.victims) == std::vector<std::string>{"b1"});
  }
  SECTION("latest start of the most important victims") {
    Snapshot s;
    s.add_node(NodeBuilder("old").build());
    s.add_node(NodeBuilder("new").build());
    add(s, "o", "old", 1, "3", "2026-01-01T00:00:00Z");
    add(s, "n", "new", 1, "3", "2026-06-01T00:00:00Z");
    CHECK(preemption_run(s, incoming(10)).nominated_node == "new");
  }
}

TEST_CASE("PodDisruptionBudgets: prefer the node whose victims break none") {
  Snapshot s;
  s.add_node(NodeBuilder("guarded").build());
  s.add_node(NodeBuilder("free").build());
  add(s, "g", "guarded", 0, "3");
  add(s, "f", "free", 1, "3");
  s.disruption_budgets.push_back(
      {"default", label_selector_from_json(json{{"matchLabels", {{"app", "g"}}}}), 0});
  PreemptionResult r = preemption_run(s, incoming(10));
  CHECK(r.nominated_node == "free");
  CHECK(r.num_pdb_violations == 0);
  // With only the guarded node left, it is still chosen, counting the violation.
  s.remove_node("free");
  r = preemption_run(s, incoming(10));
  CHECK(r.nominated_node == "guarded");
  CHECK(r.num_pdb_violations == 1);
}

TEST_CASE("preemption helps anti-affinity too: the pre-filter state follows the dry run") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  add(s, "noisy", "n", 1, "100m");
  PodPtr pod = PodBuilder("urgent")
                   .priority(10)
                   .spec("affinity", {{"podAntiAffinity",
                                       {{"requiredDuringSchedulingIgnoredDuringExecution",
                                         {{{"labelSelector", {{"matchLabels", {{"app", "noisy"}}}}},
                                           {"topologyKey", "kubernetes.io/hostname"}}}}}}})
                   .build();
  PreemptionResult r = preemption_run(s, pod);
  CHECK(r.nominated_node == "n");
  CHECK(names(r.victims) == std::vector<std::string>{"noisy"});
}

TEST_CASE("not eligible: preemptionPolicy Never, terminating victims on the nominated node") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  add(s, "low", "n", 1, "3");
  PodPtr never =
      PodBuilder("p").priority(10).request("cpu", "2").spec("preemptionPolicy", "Never").build();
  CHECK(preemption_run(s, never).message ==
        "preemption: not eligible due to preemptionPolicy=Never.");

  PodBuilder going("going");
  going.node("n").priority(1).request("cpu", "100m");
  going.raw()["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  REQUIRE(s.add_pod(going.build()).is_ok());
  PodBuilder waiting("w");
  waiting.priority(10).request("cpu", "2");
  waiting.raw()["status"]["nominatedNodeName"] = "n";
  CHECK(preemption_run(s, waiting.build()).message ==
        "preemption: not eligible due to a terminating pod on the nominated node.");
}

}  // namespace
}  // namespace k3c::scheduler

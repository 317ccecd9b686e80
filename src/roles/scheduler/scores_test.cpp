// Each score plugin on its own, normalised to 0-100 as upstream does.
#include <catch2/catch.hpp>

#include "roles/scheduler/scheduler.h"
#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using json = nlohmann::json;
using Score = std::vector<int64_t> (*)(const CycleState&, const NodeList&);

std::vector<int64_t> scores_run(Score f, const Snapshot& s, const PodPtr& pod) {
  CycleState state(s, *pod);
  REQUIRE(run_prefilters(state).ok());
  NodeList nodes;
  for (const NodeInfo& n : s.nodes()) nodes.push_back(&n);
  return f(state, nodes);
}

using V = std::vector<int64_t>;

TEST_CASE(
    "LeastAllocated: free share of cpu and memory, request-less containers count 100m/200Mi") {
  Snapshot s;
  s.add_node(NodeBuilder("empty").build());
  s.add_node(NodeBuilder("busy").build());
  REQUIRE(
      s.add_pod(PodBuilder("x").node("busy").request("cpu", "2").request("memory", "4Gi").build())
          .is_ok());
  // (4000-1000)/4000 = 75, (8-2)/8 = 75 -> 75; busy: 25 and 25 -> 25.
  CHECK(scores_run(score_least_allocated, s,
                   PodBuilder("p").request("cpu", "1").request("memory", "2Gi").build()) ==
        V{75, 25});
  // Nothing requested: 100m of 4000m -> 97, 200Mi of 8Gi -> 97.
  CHECK(scores_run(score_least_allocated, s, PodBuilder("p").build())[0] == 97);
}

TEST_CASE("BalancedAllocation: equal cpu and memory shares score best") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  CHECK(scores_run(score_balanced_allocation, s,
                   PodBuilder("p").request("cpu", "2").request("memory", "4Gi").build()) == V{100});
  // cpu 1/2, memory 0 -> std 0.25 -> 75.
  CHECK(scores_run(score_balanced_allocation, s, PodBuilder("p").request("cpu", "2").build()) ==
        V{75});
}

TEST_CASE("TaintToleration score: fewer untolerated PreferNoSchedule taints is better") {
  Snapshot s;
  s.add_node(NodeBuilder("clean").build());
  s.add_node(NodeBuilder("one").taint("a", "", "PreferNoSchedule").build());
  s.add_node(NodeBuilder("two")
                 .taint("a", "", "PreferNoSchedule")
                 .taint("b", "", "PreferNoSchedule")
                 .build());
  CHECK(scores_run(score_taint_toleration, s, PodBuilder("p").build()) == V{100, 50, 0});
  PodPtr tolerant =
      PodBuilder("p")
          .toleration({{"key", "a"}, {"operator", "Exists"}, {"effect", "PreferNoSchedule"}})
          .build();
  CHECK(scores_run(score_taint_toleration, s, tolerant) == V{100, 100, 0});
}

TEST_CASE("NodeAffinity score: weights of matching preferred terms") {
  Snapshot s;
  s.add_node(NodeBuilder("ssd").label("disk", "ssd").build());
  s.add_node(NodeBuilder("both").label("disk", "ssd").label("gpu", "yes").build());
  s.add_node(NodeBuilder("none").build());
  auto term = [](int weight, const char* key) {
    return json{{"weight", weight},
                {"preference", {{"matchExpressions", {{{"key", key}, {"operator", "Exists"}}}}}}};
  };
  PodPtr p = PodBuilder("p")
                 .spec("affinity", {{"nodeAffinity",
                                     {{"preferredDuringSchedulingIgnoredDuringExecution",
                                       {term(10, "disk"), term(30, "gpu")}}}}})
                 .build();
  CHECK(scores_run(score_node_affinity, s, p) == V{25, 100, 0});
  CHECK(scores_run(score_node_affinity, s, PodBuilder("q").build()) == V{0, 0, 0});
}

TEST_CASE("ImageLocality: size spread by how many nodes hold the image") {
  Snapshot s;
  s.add_node(NodeBuilder("has").image("registry/app:1", 500LL << 20).build());
  s.add_node(NodeBuilder("lacks").build());
  // 500 MB * 1/2 of the nodes = 250 MB, between 23 MB and 1000 MB -> 23.
  CHECK(scores_run(score_image_locality, s, PodBuilder("p").image("registry/app:1").build()) ==
        V{23, 0});
  CHECK(scores_run(score_image_locality, s, PodBuilder("p").image("registry/app:2").build()) ==
        V{0, 0});
}

TEST_CASE("InterPodAffinity score: preferred affinity and anti-affinity by domain") {
  const char* kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  Snapshot s;
  s.add_node(NodeBuilder("a1").label("zone", "a").build());
  s.add_node(NodeBuilder("a2").label("zone", "a").build());
  s.add_node(NodeBuilder("b1").label("zone", "b").build());
  REQUIRE(s.add_pod(PodBuilder("db").node("a1").label("app", "db").build()).is_ok());
  auto weighted = [](const char* app, const char* key) {
    return json{{"weight", 50},
                {"podAffinityTerm",
                 {{"labelSelector", {{"matchLabels", {{"app", app}}}}}, {"topologyKey", key}}}};
  };
  PodPtr near = PodBuilder("p")
                    .spec("affinity", {{"podAffinity", {{kPreferred, {weighted("db", "zone")}}}}})
                    .build();
  CHECK(scores_run(score_inter_pod_affinity, s, near) == V{100, 100, 0});
  PodPtr away =
      PodBuilder("p")
          .spec("affinity", {{"podAntiAffinity", {{kPreferred, {weighted("db", "zone")}}}}})
          .build();
  CHECK(scores_run(score_inter_pod_affinity, s, away) == V{0, 0, 100});
  CHECK(scores_run(score_inter_pod_affinity, s, PodBuilder("p").build()) == V{0, 0, 0});
}

TEST_CASE("PodTopologySpread score: the emptier domain scores higher; nodes without the key 0") {
  Snapshot s;
  s.add_node(NodeBuilder("a1").label("zone", "a").build());
  s.add_node(NodeBuilder("b1").label("zone", "b").build());
  s.add_node(NodeBuilder("nozone").build());
  for (int i = 0; i < 2; ++i) {
    REQUIRE(s.add_pod(PodBuilder("w" + std::to_string(i)).node("a1").label("app", "web").build())
                .is_ok());
  }
  json c = {{"maxSkew", 1},
            {"topologyKey", "zone"},
            {"whenUnsatisfiable", "ScheduleAnyway"},
            {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}};
  PodPtr p = PodBuilder("p")
                 .label("app", "web")
                 .spec("topologySpreadConstraints", json::array({c}))
                 .build();
  // Raw: a = round(2 * log(4)) = 3, b = 0 -> a: 100 * (3 + 0 - 3) / 3 = 0, b: 100.
  CHECK(scores_run(score_pod_topology_spread, s, p) == V{0, 100, 0});
}

TEST_CASE("PodTopologySpread score on kubernetes.io/hostname counts per node") {
  Snapshot s;
  s.add_node(NodeBuilder("busy").build());
  s.add_node(NodeBuilder("idle").build());
  for (int i = 0; i < 2; ++i) {
    REQUIRE(s.add_pod(PodBuilder("w" + std::to_string(i)).node("busy").label("app", "web").build())
                .is_ok());
  }
  json c = {{"maxSkew", 1},
            {"topologyKey", "kubernetes.io/hostname"},
            {"whenUnsatisfiable", "ScheduleAnyway"},
            {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}};
  PodPtr p = PodBuilder("p")
                 .label("app", "web")
                 .spec("topologySpreadConstraints", json::array({c}))
                 .build();
  // busy: round(2 * log(2 + 2)) = 3 -> 0; idle: 0 -> 100.
  CHECK(scores_run(score_pod_topology_spread, s, p) == V{0, 100});
}

}  // namespace
}  // namespace k3c::scheduler

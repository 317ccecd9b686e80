// Each filter plugin on its own: pass/fail, the status code preemption reads, and the reason
// text users see.
#include <catch2/catch.hpp>

#include "roles/scheduler/scheduler.h"
#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using json = nlohmann::json;
using Filter = FilterStatus (*)(const CycleState&, const NodeInfo&);

FilterStatus filters_run(Filter f, const Snapshot& s, const PodPtr& pod, const std::string& node) {
  CycleState state(s, *pod);
  FilterStatus pre = run_prefilters(state);
  if (!pre.ok()) return pre;
  return f(state, *s.find(node));
}

std::string reasons(const FilterStatus& s) {
  std::string out;
  for (const auto& r : s.reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

Snapshot one_node(NodeBuilder node) {
  Snapshot s;
  s.add_node(node.build());
  return s;
}

TEST_CASE("NodeUnschedulable") {
  Snapshot s = one_node(NodeBuilder("n").unschedulable());
  FilterStatus st = filters_run(filter_node_unschedulable, s, PodBuilder("p").build(), "n");
  CHECK(st.code == FilterCode::kUnresolvable);
  CHECK(reasons(st) == "node(s) were unschedulable");
  PodPtr tolerant = PodBuilder("p")
                        .toleration({{"key", "node.kubernetes.io/unschedulable"},
                                     {"operator", "Exists"},
                                     {"effect", "NoSchedule"}})
                        .build();
  CHECK(filters_run(filter_node_unschedulable, s, tolerant, "n").ok());
}

TEST_CASE("NodeName") {
  Snapshot s = one_node(NodeBuilder("n"));
  CHECK(filters_run(filter_node_name, s, PodBuilder("p").build(), "n").ok());
  CHECK(filters_run(filter_node_name, s, PodBuilder("p").node("n").build(), "n").ok());
  CHECK(reasons(filters_run(filter_node_name, s, PodBuilder("p").node("m").build(), "n")) ==
        "node(s) didn't match the requested node name");
}

TEST_CASE("TaintToleration filter") {
  Snapshot s = one_node(NodeBuilder("n")
                            .taint("soft", "", "PreferNoSchedule")
                            .taint("node-role.kubernetes.io/control-plane", "", "NoSchedule")
                            .taint("dedicated", "gpu", "NoExecute"));
  struct Case {
    const char* name;
    json tolerations;
    std::string want;  // "" passes
  };
  std::vector<Case> cases = {
      {"none tolerated: the first hard taint is named", json::array(),
       "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"},
      {"Exists on the key",
       {{{"key", "node-role.kubernetes.io/control-plane"}, {"operator", "Exists"}}},
       "node(s) had untolerated taint {dedicated: gpu}"},
      {"Equal needs the value",
       {{{"key", "node-role.kubernetes.io/control-plane"}, {"operator", "Exists"}},
        {{"key", "dedicated"}, {"operator", "Equal"}, {"value", "cpu"}}},
       "node(s) had untolerated taint {dedicated: gpu}"},
      {"Equal with the value, any effect",
       {{{"key", "node-role.kubernetes.io/control-plane"}, {"operator", "Exists"}},
        {{"key", "dedicated"}, {"value", "gpu"}}},
       ""},
      {"effect must match when given",
       {{{"key", "node-role.kubernetes.io/control-plane"}, {"operator", "Exists"}},
        {{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}},
       "node(s) had untolerated taint {dedicated: gpu}"},
      {"empty key with Exists tolerates everything", {{{"operator", "Exists"}}}, ""},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      PodBuilder pod("p");
      pod.spec("tolerations", c.tolerations);
      FilterStatus st = filters_run(filter_taint_toleration, s, pod.build(), "n");
      CHECK(reasons(st) == c.want);
      if (!c.want.empty()) CHECK(st.code == FilterCode::kUnresolvable);
    }
  }
}

TEST_CASE("NodeAffinity: nodeSelector, every operator, matchFields") {
  Snapshot s = one_node(NodeBuilder("n").label("zone", "a").label("gen", "5"));
  auto required = [](json expressions, const char* kind = "matchExpressions") {
    return json{{"nodeAffinity",
                 {{"requiredDuringSchedulingIgnoredDuringExecution",
                   {{"nodeSelectorTerms", {{{kind, expressions}}}}}}}}};
  };
  auto expr = [](const char* key, const char* op, json values = json::array()) {
    return json{{"key", key}, {"operator", op}, {"values", values}};
  };
  struct Case {
    const char* name;
    json affinity;
    bool fits;
  };
  std::vector<Case> cases = {
      {"In", required({expr("zone", "In", {"a", "b"})}), true},
      {"In miss", required({expr("zone", "In", {"b"})}), false},
      {"NotIn", required({expr("zone", "NotIn", {"b"})}), true},
      {"Exists", required({expr("zone", "Exists")}), true},
      {"DoesNotExist", required({expr("zone", "DoesNotExist")}), false},
      {"Gt", required({expr("gen", "Gt", {"4"})}), true},
      {"Gt equal", required({expr("gen", "Gt", {"5"})}), false},
      {"Lt", required({expr("gen", "Lt", {"6"})}), true},
      {"Lt on a missing label", required({expr("cores", "Lt", {"6"})}), false},
      {"matchFields metadata.name", required({expr("metadata.name", "In", {"n"})}, "matchFields"),
       true},
      {"matchFields other name", required({expr("metadata.name", "In", {"m"})}, "matchFields"),
       false},
      {"expressions AND", required({expr("zone", "In", {"a"}), expr("gen", "In", {"4"})}), false},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      FilterStatus st = filters_run(filter_node_affinity, s,
                                    PodBuilder("p").spec("affinity", c.affinity).build(), "n");
      CHECK(st.ok() == c.fits);
      if (!c.fits) {
        CHECK(reasons(st) == "node(s) didn't match Pod's node affinity/selector");
        CHECK(st.code == FilterCode::kUnresolvable);
      }
    }
  }
  SECTION("terms are ORed") {
    json affinity = {{"nodeAffinity",
                      {{"requiredDuringSchedulingIgnoredDuringExecution",
                        {{"nodeSelectorTerms",
                          {{{"matchExpressions", {expr("zone", "In", {"x"})}}},
                           {{"matchExpressions", {expr("zone", "In", {"a"})}}}}}}}}}};
    CHECK(filters_run(filter_node_affinity, s, PodBuilder("p").spec("affinity", affinity).build(),
                      "n")
              .ok());
  }
  SECTION("nodeSelector") {
    CHECK(filters_run(filter_node_affinity, s,
                      PodBuilder("p").spec("nodeSelector", {{"zone", "a"}}).build(), "n")
              .ok());
    CHECK_FALSE(filters_run(filter_node_affinity, s,
                            PodBuilder("p").spec("nodeSelector", {{"zone", "b"}}).build(), "n")
                    .ok());
  }
}

TEST_CASE("NodePorts") {
  Snapshot s = one_node(NodeBuilder("n"));
  REQUIRE(s.add_pod(PodBuilder("web").node("n").host_port(80).build()).is_ok());
  CHECK(filters_run(filter_node_ports, s, PodBuilder("p").host_port(8080).build(), "n").ok());
  FilterStatus st = filters_run(filter_node_ports, s, PodBuilder("p").host_port(80).build(), "n");
  CHECK(st.code == FilterCode::kUnschedulable);
  CHECK(reasons(st) == "node(s) didn't have free ports for the requested pod ports");
  PodBuilder udp("u");
  udp.host_port(80).raw()["spec"]["containers"][0]["ports"][0]["protocol"] = "UDP";
  CHECK(filters_run(filter_node_ports, s, udp.build(), "n").ok());
}

TEST_CASE("NodeResourcesFit") {
  Snapshot s =
      one_node(NodeBuilder("n").allocatable("pods", "2").allocatable("example.com/dongle", "1"));
  REQUIRE(s.add_pod(PodBuilder("a").node("n").request("cpu", "3").request("memory", "1Gi").build())
              .is_ok());
  struct Case {
    const char* name;
    PodPtr pod;
    std::string want;
    FilterCode code;
  };
  std::vector<Case> cases = {
      {"fits", PodBuilder("p").request("cpu", "1").build(), "", FilterCode::kSuccess},
      {"cpu short: preemption could help", PodBuilder("p").request("cpu", "1500m").build(),
       "Insufficient cpu", FilterCode::kUnschedulable},
      {"more than the node has: unresolvable", PodBuilder("p").request("cpu", "5").build(),
       "Insufficient cpu", FilterCode::kUnresolvable},
      {"every short resource is listed",
       PodBuilder("p")
           .request("cpu", "2")
           .request("memory", "8Gi")
           .request("ephemeral-storage", "1Gi")
           .build(),
       "Insufficient cpu; Insufficient memory; Insufficient ephemeral-storage",
       FilterCode::kUnresolvable},
      {"extended resource", PodBuilder("p").request("example.com/dongle", "2").build(),
       "Insufficient example.com/dongle", FilterCode::kUnresolvable},
      {"extended resource the node lacks", PodBuilder("p").request("nvidia.com/gpu", "1").build(),
       "Insufficient nvidia.com/gpu", FilterCode::kUnresolvable},
  };
  for (const Case& c : cases) {
    SECTION(c.name) {
      FilterStatus st = filters_run(filter_node_resources_fit, s, c.pod, "n");
      CHECK(reasons(st) == c.want);
      CHECK(st.code == c.code);
    }
  }
  SECTION("pod count") {
    REQUIRE(s.add_pod(PodBuilder("b").node("n").build()).is_ok());
    FilterStatus st = filters_run(filter_node_resources_fit, s, PodBuilder("p").build(), "n");
    CHECK(reasons(st) == "Too many pods");
    CHECK(st.code == FilterCode::kUnschedulable);
  }
}

TEST_CASE("VolumeBinding and NodeVolumeLimits") {
  Snapshot s;
  s.add_node(NodeBuilder("n").build());
  s.add_node(NodeBuilder("m").build());
  NodeSelector on_n{{{{}, {{"metadata.name", NodeSelectorRequirement::Op::kIn, {"n"}}}}}};
  s.volume_node_affinity["pv-local"] = on_n;
  s.claims["default/bound"] = {"pv-local", false};
  s.claims["default/later"] = {"", true};
  s.claims["default/now"] = {"", false};
  auto with_claim = [](const char* claim) {
    return PodBuilder("p")
        .spec("volumes", {{{"name", "v"}, {"persistentVolumeClaim", {{"claimName", claim}}}}})
        .build();
  };
  CHECK(filters_run(filter_volume_binding, s, with_claim("bound"), "n").ok());
  FilterStatus st = filters_run(filter_volume_binding, s, with_claim("bound"), "m");
  CHECK(reasons(st) == "node(s) had volume node affinity conflict");
  CHECK(filters_run(filter_volume_binding, s, with_claim("later"), "m").ok());
  CHECK(reasons(filters_run(filter_volume_binding, s, with_claim("now"), "m")) ==
        "pod has unbound immediate PersistentVolumeClaims");
  CHECK(reasons(filters_run(filter_volume_binding, s, with_claim("gone"), "m")) ==
        "persistentvolumeclaim \"gone\" not found");

  auto limited = std::make_shared<NodeModel>(s.find("m")->node());
  limited->max_volumes = 0;
  s.add_node(limited);
  CHECK(reasons(filters_run(filter_node_volume_limits, s, with_claim("later"), "m")) ==
        "node(s) exceed max volume count");
  CHECK(filters_run(filter_node_volume_limits, s, PodBuilder("p").build(), "m").ok());
}

json spread(const char* key, int skew, const char* when = "DoNotSchedule") {
  return {{"maxSkew", skew},
          {"topologyKey", key},
          {"whenUnsatisfiable", when},
          {"labelSelector", {{"matchLabels", {{"app", "web"}}}}}};
}

TEST_CASE("PodTopologySpread filter") {
  Snapshot s;
  s.add_node(NodeBuilder("a1").label("zone", "a").build());
  s.add_node(NodeBuilder("a2").label("zone", "a").build());
  s.add_node(NodeBuilder("b1").label("zone", "b").build());
  s.add_node(NodeBuilder("nozone").build());
  for (const char* n : {"a1", "a2"}) {
    REQUIRE(
        s.add_pod(PodBuilder(std::string("web-") + n).node(n).label("app", "web").build()).is_ok());
  }
  REQUIRE(s.add_pod(PodBuilder("other").node("b1").label("app", "db").build()).is_ok());
  auto pod = [](json constraints) {
    return PodBuilder("p")
        .label("app", "web")
        .spec("topologySpreadConstraints", constraints)
        .build();
  };
  // zone a holds 2, zone b 0: a third in a makes skew 3.
  FilterStatus st = filters_run(filter_pod_topology_spread, s, pod({spread("zone", 1)}), "a1");
  CHECK(reasons(st) == "node(s) didn't match pod topology spread constraints");
  CHECK(st.code == FilterCode::kUnschedulable);
  CHECK(filters_run(filter_pod_topology_spread, s, pod({spread("zone", 1)}), "b1").ok());
  CHECK(filters_run(filter_pod_topology_spread, s, pod({spread("zone", 3)}), "a1").ok());
  st = filters_run(filter_pod_topology_spread, s, pod({spread("zone", 1)}), "nozone");
  CHECK(reasons(st) ==
        "node(s) didn't match pod topology spread constraints (missing required label)");
  CHECK(st.code == FilterCode::kUnresolvable);
  SECTION("minDomains above the domain count makes the minimum 0") {
    REQUIRE(s.add_pod(PodBuilder("web-b1").node("b1").label("app", "web").build()).is_ok());
    json c = spread("zone", 2);
    c["minDomains"] = 3;
    CHECK_FALSE(filters_run(filter_pod_topology_spread, s, pod({c}), "a1").ok());
    CHECK(filters_run(filter_pod_topology_spread, s, pod({spread("zone", 2)}), "a1").ok());
  }
  SECTION("nodeAffinityPolicy Honor leaves out nodes the pod cannot use") {
    PodBuilder b("p");
    b.label("app", "web").spec("topologySpreadConstraints", {spread("zone", 1)});
    b.spec("nodeSelector", {{"zone", "a"}});
    // Only zone a counts: it is the single domain, so the skew is 0.
    CHECK(filters_run(filter_pod_topology_spread, s, b.build(), "a1").ok());
  }
  SECTION("ScheduleAnyway does not filter") {
    CHECK(
        filters_run(filter_pod_topology_spread, s, pod({spread("zone", 1, "ScheduleAnyway")}), "a1")
            .ok());
  }
}

json pod_affinity(const char* kind, const char* section, const char* app, const char* key) {
  return {{kind,
           {{section,
             {{{"labelSelector", {{"matchLabels", {{"app", app}}}}}, {"topologyKey", key}}}}}}};
}

TEST_CASE("InterPodAffinity filter") {
  const char* kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  Snapshot s;
  s.add_node(NodeBuilder("a1").label("zone", "a").build());
  s.add_node(NodeBuilder("a2").label("zone", "a").build());
  s.add_node(NodeBuilder("b1").label("zone", "b").build());
  REQUIRE(s.add_pod(PodBuilder("db").node("a1").label("app", "db").build()).is_ok());

  SECTION("required affinity: same zone as the db") {
    PodPtr p = PodBuilder("p")
                   .spec("affinity", pod_affinity("podAffinity", kRequired, "db", "zone"))
                   .build();
    CHECK(filters_run(filter_inter_pod_affinity, s, p, "a2").ok());
    FilterStatus st = filters_run(filter_inter_pod_affinity, s, p, "b1");
    CHECK(reasons(st) == "node(s) didn't match pod affinity rules");
    CHECK(st.code == FilterCode::kUnresolvable);
  }
  SECTION("several required terms: a domain needs pods matching all of them") {
    REQUIRE(s.add_pod(PodBuilder("db2").node("b1").label("app", "db").label("tier", "gold").build())
                .is_ok());
    json aff = pod_affinity("podAffinity", kRequired, "db", "zone");
    aff["podAffinity"][kRequired].push_back(
        {{"labelSelector", {{"matchLabels", {{"tier", "gold"}}}}}, {"topologyKey", "zone"}});
    PodPtr p = PodBuilder("p").spec("affinity", aff).build();
    CHECK(filters_run(filter_inter_pod_affinity, s, p, "b1").ok());
    CHECK_FALSE(filters_run(filter_inter_pod_affinity, s, p, "a2").ok());
  }
  SECTION("the first pod of a self-affine group may go anywhere") {
    PodPtr p = PodBuilder("p")
                   .label("app", "cache")
                   .spec("affinity", pod_affinity("podAffinity", kRequired, "cache", "zone"))
                   .build();
    CHECK(filters_run(filter_inter_pod_affinity, s, p, "b1").ok());
  }
  SECTION("required anti-affinity") {
    PodPtr p = PodBuilder("p")
                   .spec("affinity", pod_affinity("podAntiAffinity", kRequired, "db", "zone"))
                   .build();
    FilterStatus st = filters_run(filter_inter_pod_affinity, s, p, "a2");
    CHECK(reasons(st) == "node(s) didn't match pod anti-affinity rules");
    CHECK(st.code == FilterCode::kUnschedulable);
    CHECK(filters_run(filter_inter_pod_affinity, s, p, "b1").ok());
  }
  SECTION("existing pods' anti-affinity is symmetric") {
    REQUIRE(s.add_pod(PodBuilder("loner")
                          .node("b1")
                          .label("app", "loner")
                          .spec("affinity", pod_affinity("podAntiAffinity", kRequired, "web",
                                                         "kubernetes.io/hostname"))
                          .build())
                .is_ok());
    PodPtr web = PodBuilder("w").label("app", "web").build();
    FilterStatus st = filters_run(filter_inter_pod_affinity, s, web, "b1");
    CHECK(reasons(st) == "node(s) didn't satisfy existing pods anti-affinity rules");
    CHECK(filters_run(filter_inter_pod_affinity, s, web, "a1").ok());
  }
  SECTION("namespaces: a term looks in the pod's namespace unless told otherwise") {
    PodPtr other_ns = PodBuilder("p", "team")
                          .spec("affinity", pod_affinity("podAffinity", kRequired, "db", "zone"))
                          .build();
    CHECK_FALSE(filters_run(filter_inter_pod_affinity, s, other_ns, "a2").ok());
    json aff = pod_affinity("podAffinity", kRequired, "db", "zone");
    aff["podAffinity"][kRequired][0]["namespaceSelector"] = json::object();
    CHECK(filters_run(filter_inter_pod_affinity, s,
                      PodBuilder("p", "team").spec("affinity", aff).build(), "a2")
              .ok());
    aff["podAffinity"][kRequired][0]["namespaceSelector"] = {{"matchLabels", {{"env", "prod"}}}};
    CHECK_FALSE(filters_run(filter_inter_pod_affinity, s,
                            PodBuilder("p", "team").spec("affinity", aff).build(), "a2")
                    .ok());
    s.namespaces["default"] = {{"env", "prod"}};
    CHECK(filters_run(filter_inter_pod_affinity, s,
                      PodBuilder("p", "team").spec("affinity", aff).build(), "a2")
              .ok());
  }
}

}  // namespace
}  // namespace k3c::scheduler

// Table tests for the node lifecycle rules: Unknown conditions and condition taints.
#include "roles/controllers/nodelifecycle/node_health.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

using nlohmann::json;

json node_with(json conditions, json spec = json::object()) {
  return {{"metadata", {{"name", "n1"}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"spec", spec},
          {"status", {{"conditions", conditions}}}};
}

json condition(const char* type, const char* status) {
  return {{"type", type},
          {"status", status},
          {"reason", "KubeletReady"},
          {"lastHeartbeatTime", "2026-01-01T00:01:00Z"},
          {"lastTransitionTime", "2026-01-01T00:01:00Z"}};
}

TEST_CASE("a silent node's conditions become Unknown; missing ones are added") {
  json node = node_with(json::array({condition("Ready", "True")}));
  REQUIRE(mark_node_status_unknown(node, "2026-01-01T00:05:00Z"));
  const json& conditions = node["status"]["conditions"];
  REQUIRE(conditions.size() == 4);
  CHECK(conditions[0]["status"] == "Unknown");
  CHECK(conditions[0]["reason"] == "NodeStatusUnknown");
  CHECK(conditions[0]["message"] == "Kubelet stopped posting node status.");
  CHECK(conditions[0]["lastHeartbeatTime"] == "2026-01-01T00:01:00Z");  // kept
  CHECK(conditions[0]["lastTransitionTime"] == "2026-01-01T00:05:00Z");
  CHECK(conditions[1]["type"] == "MemoryPressure");
  CHECK(conditions[1]["reason"] == "NodeStatusNeverUpdated");
  CHECK(conditions[1]["message"] == "Kubelet never posted node status.");
  CHECK(conditions[1]["lastHeartbeatTime"] == "2026-01-01T00:00:00Z");  // creation
  CHECK_FALSE(mark_node_status_unknown(node, "2026-01-01T00:06:00Z"));  // already Unknown
}

TEST_CASE("a node without status gets every condition as never updated") {
  json node = {{"metadata", {{"name", "n1"}}}};
  REQUIRE(mark_node_status_unknown(node, "T"));
  CHECK(node["status"]["conditions"].size() == 4);
  CHECK(node["status"]["conditions"][0]["lastHeartbeatTime"] == "T");
}

TEST_CASE("condition taints follow the conditions and spec.unschedulable") {
  auto keys = [](const json& node) {
    std::vector<std::string> out;
    for (const auto& t : condition_taints(node)) out.push_back(t.key + ":" + t.effect);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(keys(node_with(json::array({condition("Ready", "True")}))).empty());
  CHECK(keys(node_with(json::array({condition("Ready", "False")}))) ==
        V{"node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/not-ready:NoSchedule"});
  CHECK(keys(node_with(json::array({condition("Ready", "Unknown")}))) ==
        V{"node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"});
  CHECK(keys(node_with(
            json::array({condition("Ready", "True"), condition("DiskPressure", "True"),
                         condition("MemoryPressure", "True"), condition("PIDPressure", "True"),
                         condition("NetworkUnavailable", "True")}),
            {{"unschedulable", true}})) == V{"node.kubernetes.io/memory-pressure:NoSchedule",
                                             "node.kubernetes.io/disk-pressure:NoSchedule",
                                             "node.kubernetes.io/pid-pressure:NoSchedule",
                                             "node.kubernetes.io/network-unavailable:NoSchedule",
                                             "node.kubernetes.io/unschedulable:NoSchedule"});
  CHECK(keys(json::object()).empty());
}

TEST_CASE("owned taints are reconciled, others kept in place") {
  json node = node_with(
      json::array(),
      {{"taints",
        json::array({{{"key", "dedicated"}, {"effect", "NoSchedule"}},
                     {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}}})}});
  std::vector<ConditionTaint> wanted = {{"node.kubernetes.io/unreachable", "NoExecute"},
                                        {"node.kubernetes.io/unreachable", "NoSchedule"}};
  REQUIRE(reconcile_condition_taints(node, wanted, "NOW"));
  const json& taints = node["spec"]["taints"];
  REQUIRE(taints.size() == 3);
  CHECK(taints[0]["key"] == "dedicated");
  CHECK(taints[1]["key"] == "node.kubernetes.io/unreachable");
  CHECK(taints[1]["timeAdded"] == "NOW");
  CHECK_FALSE(taints[2].contains("timeAdded"));
  CHECK_FALSE(reconcile_condition_taints(node, wanted, "LATER"));  // stable
  REQUIRE(reconcile_condition_taints(node, {}, "LATER"));
  CHECK(node["spec"]["taints"].size() == 1);
  json bare = {{"spec", json::object()}};
  CHECK_FALSE(reconcile_condition_taints(bare, {}, "NOW"));
  CHECK_FALSE(bare["spec"].contains("taints"));
}

}  // namespace
}  // namespace k3c::controllers

// The synthetic cluster of k3c_scheduler_bench (see scheduler_cluster.h). Objects go through
// the scheduler's JSON parsers, as informer events would.
#include "scheduler_cluster.h"

#include <nlohmann/json.hpp>
#include <string>

namespace k3c::bench {

using json = nlohmann::json;
using namespace k3c::scheduler;

namespace {

const char* kZones[] = {"zone-a", "zone-b", "zone-c"};
constexpr int kWorkloads = 50;

json node_json(size_t i) {
  std::string name = "node-" + std::to_string(i);
  json node = {{"metadata",
                {{"name", name},
                 {"labels",
                  {{"kubernetes.io/hostname", name},
                   {"topology.kubernetes.io/zone", kZones[i % 3]},
                   {"node.kubernetes.io/instance-type", i % 4 == 0 ? "large" : "medium"}}}}},
               {"spec", json::object()},
               {"status",
                {{"allocatable",
                  {{"cpu", i % 4 == 0 ? "16" : "8"},
                   {"memory", i % 4 == 0 ? "64Gi" : "32Gi"},
                   {"ephemeral-storage", "100Gi"},
                   {"pods", "110"}}},
                 {"images",
                  {{{"names", {"registry.local/app-" + std::to_string(i % kWorkloads) + ":1"}},
                    {"sizeBytes", 300 << 20}}}}}}};
  // 10% dedicated (NoSchedule), 5% soft-tainted (PreferNoSchedule), 3 control-plane nodes.
  if (i % 10 == 7)
    node["spec"]["taints"].push_back(
        {{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}});
  if (i % 20 == 3)
    node["spec"]["taints"].push_back({{"key", "spot"}, {"effect", "PreferNoSchedule"}});
  if (i < 3) {
    node["spec"]["taints"].push_back(
        {{"key", "node-role.kubernetes.io/control-plane"}, {"effect", "NoSchedule"}});
  }
  return node;
}

json container(int workload, const char* cpu, const char* memory) {
  return {{"name", "app"},
          {"image", "registry.local/app-" + std::to_string(workload) + ":1"},
          {"resources", {{"requests", {{"cpu", cpu}, {"memory", memory}}}}}};
}

json pod_json(const std::string& name, size_t i) {
  int workload = static_cast<int>(i % kWorkloads);
  std::string app = "app-" + std::to_string(workload);
  static const char* cpus[] = {"100m", "250m", "500m", "1"};
  static const char* mems[] = {"128Mi", "256Mi", "512Mi", "1Gi"};
  json pod = {{"metadata",
               {{"name", name},
                {"namespace", "ns-" + std::to_string(workload % 5)},
                {"uid", name},
                {"labels", {{"app", app}}}}},
              {"spec", {{"containers", {container(workload, cpus[i % 4], mems[(i / 4) % 4])}}}}};
  json& spec = pod["spec"];
  switch (i % 20) {
    case 0:
    case 1:
    case 2:  // 15%: required node affinity on zone and instance type
      spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
          {"nodeSelectorTerms",
           {{{"matchExpressions",
              {{{"key", "topology.kubernetes.io/zone"},
                {"operator", "In"},
                {"values", {kZones[i % 3], kZones[(i + 1) % 3]}}}}}}}}};
      break;
    case 3:
    case 4:  // 10%: zone spread, hard
      spec["topologySpreadConstraints"] = {{{"maxSkew", 1},
                                            {"topologyKey", "topology.kubernetes.io/zone"},
                                            {"whenUnsatisfiable", "DoNotSchedule"},
                                            {"labelSelector", {{"matchLabels", {{"app", app}}}}}}};
      break;
    case 5:
    case 6:  // 10%: hostname spread, soft
      spec["topologySpreadConstraints"] = {{{"maxSkew", 1},
                                            {"topologyKey", "kubernetes.io/hostname"},
                                            {"whenUnsatisfiable", "ScheduleAnyway"},
                                            {"labelSelector", {{"matchLabels", {{"app", app}}}}}}};
      break;
    case 7:
    case 8:  // 10%: preferred anti-affinity to their own replicas per node
      spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = {
          {{"weight", 100},
           {"podAffinityTerm",
            {{"labelSelector", {{"matchLabels", {{"app", app}}}}},
             {"topologyKey", "kubernetes.io/hostname"}}}}};
      break;
    case 9:  // 5%: tolerate the dedicated nodes and prefer them
      spec["tolerations"] = {{{"key", "dedicated"},
                              {"operator", "Equal"},
                              {"value", "gpu"},
                              {"effect", "NoSchedule"}}};
      spec["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = {
          {{"weight", 50},
           {"preference",
            {{"matchExpressions",
              {{{"key", "node.kubernetes.io/instance-type"},
                {"operator", "In"},
                {"values", {"large"}}}}}}}}};
      break;
    default:  // 50%: plain
      break;
  }
  return pod;
}

}  // namespace

Cluster make_cluster(const ClusterShape& shape) {
  Cluster c;
  for (size_t i = 0; i < shape.nodes; ++i) c.snapshot.add_node(*node_from_json(node_json(i)));
  for (size_t i = 0; i < shape.existing_pods; ++i) {
    json pod = pod_json("running-" + std::to_string(i), i);
    // Existing pods keep only their requests and labels: placed round-robin on untainted
    // nodes, as if scheduled earlier.
    pod["spec"].erase("affinity");
    pod["spec"].erase("topologySpreadConstraints");
    size_t node = 3 + (i * 7) % (shape.nodes - 3);
    if (node % 10 == 7) ++node;
    pod["spec"]["nodeName"] = "node-" + std::to_string(node % shape.nodes);
    (void)c.snapshot.add_pod(*pod_from_json(pod));  // the node exists: it cannot fail
  }
  for (size_t i = 0; i < shape.pending_pods; ++i) {
    c.pending.push_back(*pod_from_json(pod_json("pending-" + std::to_string(i), i)));
  }
  return c;
}

}  // namespace k3c::bench

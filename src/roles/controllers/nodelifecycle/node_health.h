// The pure rules of node lifecycle (upstream's node lifecycle controller), apart from the
// controller so that they are table-tested: when a node's health is Unknown, what its
// conditions become, and which condition taints it should carry.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::controllers {

// The node conditions the kubelet posts and the controller turns Unknown.
inline constexpr const char* kNodeConditionTypes[] = {"Ready", "MemoryPressure", "DiskPressure",
                                                      "PIDPressure"};

// status.conditions after the kubelet went silent: each of kNodeConditionTypes becomes
// Unknown (NodeStatusUnknown, "Kubelet stopped posting node status."), or is added as Unknown
// (NodeStatusNeverUpdated, "Kubelet never posted node status.") when it was never posted.
// Returns false when nothing changes (already Unknown).
bool mark_node_status_unknown(nlohmann::json& node, const std::string& now);

// The taints this controller owns, from the node's conditions and spec.unschedulable:
// not-ready / unreachable (NoExecute and NoSchedule), memory/disk/pid-pressure,
// network-unavailable and unschedulable (NoSchedule).
struct ConditionTaint {
  std::string key;
  std::string effect;
};
std::vector<ConditionTaint> condition_taints(const nlohmann::json& node);

// node.spec.taints with the owned taints made equal to `wanted` (others kept in place; a
// NoExecute taint gets timeAdded = now when added). Returns false when nothing changes.
bool reconcile_condition_taints(nlohmann::json& node, const std::vector<ConditionTaint>& wanted,
                                const std::string& now);

}  // namespace k3c::controllers

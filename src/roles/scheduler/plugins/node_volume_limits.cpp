// NodeVolumeLimits: a node that reports how many volumes it can attach (CSINode allocatable
// count, carried in NodeModel::max_volumes) takes no pod whose new claims would exceed it.
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus filter_node_volume_limits(const CycleState& state, const NodeInfo& node) {
  if (!node.node().max_volumes || state.pod.pvc_names.empty()) return FilterStatus::success();
  int64_t attached = static_cast<int64_t>(node.pvc_ref_counts().size());
  int64_t added = 0;
  for (const std::string& name : state.pod.pvc_names) {
    if (!node.pvc_ref_counts().count(state.pod.namespace_ + "/" + name)) ++added;
  }
  if (added == 0 || attached + added <= *node.node().max_volumes) return FilterStatus::success();
  return FilterStatus::fail(FilterCode::kUnschedulable, "NodeVolumeLimits",
                            "node(s) exceed max volume count");
}

}  // namespace k3c::scheduler

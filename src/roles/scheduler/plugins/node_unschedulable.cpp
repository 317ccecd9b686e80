// NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus filter_node_unschedulable(const CycleState& state, const NodeInfo& node) {
  if (!node.node().unschedulable) return FilterStatus::success();
  static const Taint kUnschedulable{"node.kubernetes.io/unschedulable", "",
                                    TaintEffect::kNoSchedule};
  if (tolerates_all(state.pod.tolerations, kUnschedulable)) return FilterStatus::success();
  return FilterStatus::fail(FilterCode::kUnresolvable, "NodeUnschedulable",
                            "node(s) were unschedulable");
}

}  // namespace k3c::scheduler

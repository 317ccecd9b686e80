// NodeName: a pod that names its node (spec.nodeName) fits only there.
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus filter_node_name(const CycleState& state, const NodeInfo& node) {
  if (state.pod.node_name.empty() || state.pod.node_name == node.node().name)
    return FilterStatus::success();
  return FilterStatus::fail(FilterCode::kUnresolvable, "NodeName",
                            "node(s) didn't match the requested node name");
}

}  // namespace k3c::scheduler

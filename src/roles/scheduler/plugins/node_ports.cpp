// NodePorts: a host port (ip, protocol, port) may be used by one pod per node; 0.0.0.0
// conflicts with every address.
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus filter_node_ports(const CycleState& state, const NodeInfo& node) {
  for (const HostPort& wanted : state.pod.host_ports) {
    for (const HostPort& used : node.used_ports()) {
      if (wanted.conflicts_with(used)) {
        return FilterStatus::fail(FilterCode::kUnschedulable, "NodePorts",
                                  "node(s) didn't have free ports for the requested pod ports");
      }
    }
  }
  return FilterStatus::success();
}

}  // namespace k3c::scheduler

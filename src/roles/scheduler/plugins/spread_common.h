// Helpers shared by PodTopologySpread's filter and score.
#pragma once

#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

// The pods that count for a constraint: the incoming pod's namespace, not terminating,
// selected by the constraint's selector.
inline PodCounter spread_counter(const TopologySpreadConstraint& c, const std::string& ns) {
  return PodCounter(c.selector ? &*c.selector : nullptr, ns);
}
// Whether the node has every topology key of `constraints` that `want` selects.
bool has_all_topology_keys(const std::vector<TopologySpreadConstraint>& constraints,
                           bool do_not_schedule, const NodeModel& node);
// nodeAffinityPolicy / nodeTaintsPolicy: does this node count for the constraint at all?
bool node_included(const TopologySpreadConstraint& c, const PodInfo& pod, const NodeModel& node);

}  // namespace k3c::scheduler

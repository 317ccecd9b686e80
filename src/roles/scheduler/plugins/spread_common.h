// Helpers shared by PodTopologySpread's filter and score.
#pragma once

#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

// Matching pods on the node that count for a constraint: same namespace as the incoming pod,
// not terminating, selected by the constraint's selector.
int64_t count_matching_pods(const TopologySpreadConstraint& c, const std::string& ns,
                            const NodeInfo& node);
// Whether the node has every topology key of `constraints` that `want` selects.
bool has_all_topology_keys(const std::vector<TopologySpreadConstraint>& constraints,
                           bool do_not_schedule, const NodeModel& node);
// nodeAffinityPolicy / nodeTaintsPolicy: does this node count for the constraint at all?
bool node_included(const TopologySpreadConstraint& c, const PodInfo& pod, const NodeModel& node);

}  // namespace k3c::scheduler

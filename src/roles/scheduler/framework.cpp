// The plugin order and the shared pieces of the framework (see framework.h).
#include "roles/scheduler/framework.h"

#include <algorithm>

namespace k3c::scheduler {

std::string topology_pair(const std::string& key, const std::string& value) {
  std::string pair;
  pair.reserve(key.size() + value.size() + 1);
  pair.append(key).push_back('\x1f');
  pair.append(value);
  return pair;
}

void default_normalize(std::vector<int64_t>& scores, bool reverse) {
  int64_t max = 0;
  for (int64_t s : scores) max = std::max(max, s);
  if (max == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), kMaxNodeScore);
    return;
  }
  for (int64_t& s : scores) {
    s = kMaxNodeScore * s / max;
    if (reverse) s = kMaxNodeScore - s;
  }
}

FilterStatus run_prefilters(CycleState& state) {
  FilterStatus volumes = prefilter_volume_binding(state);
  if (!volumes.ok()) return volumes;
  prefilter_pod_topology_spread(state);
  prefilter_inter_pod_affinity(state);
  return FilterStatus::success();
}

FilterStatus run_filters(const CycleState& state, const NodeInfo& node) {
  // Upstream's default filter order (VolumeRestrictions and VolumeZone have nothing to check
  // in a snapshot without volume sources and zones of volumes).
  using Filter = FilterStatus (*)(const CycleState&, const NodeInfo&);
  static constexpr Filter kFilters[] = {
      filter_node_unschedulable, filter_node_name,      filter_taint_toleration,
      filter_node_affinity,      filter_node_ports,     filter_node_resources_fit,
      filter_node_volume_limits, filter_volume_binding, filter_pod_topology_spread,
      filter_inter_pod_affinity,
  };
  for (Filter f : kFilters) {
    FilterStatus s = f(state, node);
    if (!s.ok()) return s;
  }
  return FilterStatus::success();
}

void state_remove_pod(CycleState& state, const PodInfo& pod, const NodeInfo& node) {
  spread_update(state, pod, node, -1);
  inter_pod_update(state, pod, node, -1);
}

void state_add_pod(CycleState& state, const PodInfo& pod, const NodeInfo& node) {
  spread_update(state, pod, node, +1);
  inter_pod_update(state, pod, node, +1);
}

}  // namespace k3c::scheduler

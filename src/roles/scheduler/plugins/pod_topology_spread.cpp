// PodTopologySpread, filter half: for each DoNotSchedule constraint, placing the pod in the
// node's domain must keep (matching pods there + 1 - the fewest in any domain) <= maxSkew;
// below minDomains domains the fewest counts as 0. Only nodes that pass the constraint's node
// inclusion policies and carry every constraint's topology key make up the domains.
#include <algorithm>
#include <limits>

#include "roles/scheduler/plugins/spread_common.h"

namespace k3c::scheduler {

bool has_all_topology_keys(const std::vector<TopologySpreadConstraint>& constraints,
                           bool do_not_schedule, const NodeModel& node) {
  for (const auto& c : constraints) {
    if (c.do_not_schedule == do_not_schedule && !node.labels.count(c.topology_key)) return false;
  }
  return true;
}

bool node_included(const TopologySpreadConstraint& c, const PodInfo& pod, const NodeModel& node) {
  if (c.honor_node_affinity && !pod_node_affinity_matches(pod, node)) return false;
  if (c.honor_node_taints && first_untolerated_taint(node.taints, pod.tolerations)) return false;
  return true;
}

static void recompute_min(SpreadConstraintState& s) {
  int64_t min = std::numeric_limits<int64_t>::max();
  for (const auto& [domain, count] : s.counts) min = std::min(min, count);
  if (s.counts.empty() || static_cast<int64_t>(s.counts.size()) < s.constraint->min_domains)
    min = 0;
  s.min_count = min;
}

void prefilter_pod_topology_spread(CycleState& state) {
  const PodInfo& pod = state.pod;
  for (const auto& c : pod.spread_constraints) {
    if (c.do_not_schedule) state.spread.push_back({&c, spread_counter(c, pod.namespace_), {}, 0});
  }
  if (state.spread.empty()) return;
  const Snapshot& snapshot = state.snapshot;
  // Every eligible node's domain exists, with zero matching pods at first.
  std::vector<std::vector<const std::string*>> domain_of(
      state.spread.size(), std::vector<const std::string*>(snapshot.size(), nullptr));
  for (size_t n = 0; n < snapshot.size(); ++n) {
    const NodeModel& node = snapshot.node(n).node();
    if (!has_all_topology_keys(pod.spread_constraints, true, node)) continue;
    for (size_t i = 0; i < state.spread.size(); ++i) {
      SpreadConstraintState& s = state.spread[i];
      if (!node_included(*s.constraint, pod, node)) continue;
      domain_of[i][n] = &node.labels.find(s.constraint->topology_key)->second;
      s.counts.emplace(*domain_of[i][n], 0);
    }
  }
  for (size_t i = 0; i < state.spread.size(); ++i) {
    SpreadConstraintState& s = state.spread[i];
    s.counter.for_each_node(snapshot, [&](size_t n, int64_t count) {
      if (domain_of[i][n]) s.counts[*domain_of[i][n]] += count;
    });
    recompute_min(s);
  }
}

FilterStatus filter_pod_topology_spread(const CycleState& state, const NodeInfo& node) {
  for (const SpreadConstraintState& s : state.spread) {
    const TopologySpreadConstraint& c = *s.constraint;
    auto label = node.node().labels.find(c.topology_key);
    if (label == node.node().labels.end()) {
      return FilterStatus::fail(
          FilterCode::kUnresolvable, "PodTopologySpread",
          "node(s) didn't match pod topology spread constraints (missing required label)");
    }
    int64_t self = c.selector && c.selector->matches(state.pod.labels) ? 1 : 0;
    auto count = s.counts.find(label->second);
    int64_t here = count == s.counts.end() ? 0 : count->second;
    if (here + self - s.min_count > c.max_skew) {
      return FilterStatus::fail(FilterCode::kUnschedulable, "PodTopologySpread",
                                "node(s) didn't match pod topology spread constraints");
    }
  }
  return FilterStatus::success();
}

void spread_update(CycleState& state, const PodInfo& pod, const NodeInfo& node, int delta) {
  if (state.spread.empty() || pod.namespace_ != state.pod.namespace_ || pod.terminating) return;
  if (!has_all_topology_keys(state.pod.spread_constraints, true, node.node())) return;
  for (SpreadConstraintState& s : state.spread) {
    const TopologySpreadConstraint& c = *s.constraint;
    if (!c.selector || !c.selector->matches(pod.labels)) continue;
    if (!node_included(c, state.pod, node.node())) continue;
    s.counts[node.node().labels.find(c.topology_key)->second] += delta;
    recompute_min(s);
  }
}

}  // namespace k3c::scheduler

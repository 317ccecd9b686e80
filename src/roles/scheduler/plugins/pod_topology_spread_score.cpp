// PodTopologySpread, score half (ScheduleAnyway constraints): fewer matching pods in the
// node's domain is better; each constraint's count is weighted by log(number of domains + 2)
// and the sum is normalised so the emptiest domain scores 100. Nodes missing a topology key
// score 0. The cluster-level default constraints upstream applies to pods of Services and
// workloads are not applied here (the snapshot does not carry Services).
#include <algorithm>
#include <cmath>
#include <limits>

#include "roles/scheduler/plugins/spread_common.h"

namespace k3c::scheduler {

namespace {

constexpr const char* kHostnameKey = "kubernetes.io/hostname";

struct SoftState {
  std::vector<const TopologySpreadConstraint*> constraints;
  std::vector<PodCounter> counters;
  std::vector<std::unordered_map<std::string, int64_t>> counts;  // per constraint
  std::vector<double> weights;
  std::vector<bool> ignored;  // per scored node
  // Per constraint on kubernetes.io/hostname: matching pods per node position.
  std::vector<std::vector<int64_t>> per_node;
};

// NodeInfos live in one vector in the snapshot: a node's position is its offset.
size_t position_of(const Snapshot& snapshot, const NodeInfo* node) {
  return static_cast<size_t>(node - &snapshot.node(0));
}

SoftState prescore(const CycleState& state, const NodeList& nodes) {
  SoftState s;
  const PodInfo& pod = state.pod;
  for (const auto& c : pod.spread_constraints) {
    if (c.do_not_schedule) continue;
    s.constraints.push_back(&c);
    s.counters.push_back(spread_counter(c, pod.namespace_));
  }
  s.counts.resize(s.constraints.size());
  s.ignored.resize(nodes.size());
  std::vector<size_t> domains(s.constraints.size(), 0);
  size_t scored = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const NodeModel& node = nodes[n]->node();
    s.ignored[n] = !has_all_topology_keys(pod.spread_constraints, false, node);
    if (s.ignored[n]) continue;
    ++scored;
    for (size_t i = 0; i < s.constraints.size(); ++i) {
      if (s.constraints[i]->topology_key == kHostnameKey) continue;  // counted per node
      if (s.counts[i].emplace(node.labels.find(s.constraints[i]->topology_key)->second, 0).second)
        ++domains[i];
    }
  }
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    size_t size = s.constraints[i]->topology_key == kHostnameKey ? scored : domains[i];
    s.weights.push_back(std::log(static_cast<double>(size + 2)));
  }
  // Count matching pods over every node of the cluster, for the domains seen above.
  s.per_node.resize(s.constraints.size());
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const TopologySpreadConstraint& c = *s.constraints[i];
    if (c.topology_key == kHostnameKey) {
      s.per_node[i].assign(state.snapshot.size(), 0);
      s.counters[i].for_each_node(state.snapshot,
                                  [&](size_t n, int64_t count) { s.per_node[i][n] += count; });
      continue;
    }
    s.counters[i].for_each_node(state.snapshot, [&](size_t n, int64_t count) {
      const NodeModel& node = state.snapshot.node(n).node();
      if (!has_all_topology_keys(pod.spread_constraints, false, node)) return;
      if (!node_included(c, pod, node)) return;
      auto domain = s.counts[i].find(node.labels.find(c.topology_key)->second);
      if (domain != s.counts[i].end()) domain->second += count;
    });
  }
  return s;
}

}  // namespace

std::vector<int64_t> score_pod_topology_spread(const CycleState& state, const NodeList& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  bool any_soft =
      std::any_of(state.pod.spread_constraints.begin(), state.pod.spread_constraints.end(),
                  [](const auto& c) { return !c.do_not_schedule; });
  if (!any_soft) return scores;
  SoftState s = prescore(state, nodes);
  int64_t min = std::numeric_limits<int64_t>::max(), max = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (s.ignored[n]) continue;
    double score = 0;
    for (size_t i = 0; i < s.constraints.size(); ++i) {
      const TopologySpreadConstraint& c = *s.constraints[i];
      const std::string& value = nodes[n]->node().labels.find(c.topology_key)->second;
      int64_t count = c.topology_key == kHostnameKey
                          ? s.per_node[i][position_of(state.snapshot, nodes[n])]
                          : s.counts[i][value];
      score += static_cast<double>(count) * s.weights[i] + static_cast<double>(c.max_skew - 1);
    }
    scores[n] = static_cast<int64_t>(std::round(score));
    min = std::min(min, scores[n]);
    max = std::max(max, scores[n]);
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (s.ignored[n]) {
      scores[n] = 0;
    } else if (max == 0) {
      scores[n] = kMaxNodeScore;
    } else {
      scores[n] = kMaxNodeScore * (max + min - scores[n]) / max;
    }
  }
  return scores;
}

}  // namespace k3c::scheduler

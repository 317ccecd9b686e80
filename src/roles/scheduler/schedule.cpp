// The scheduling pipeline: PreFilter, Filter over a rotating sample of nodes, Score with
// upstream's default weights, and the choice among the best (see schedule.h).
#include "roles/scheduler/schedule.h"

#include <functional>

namespace k3c::scheduler {

namespace {

// SplitMix64: small, fast and good enough to spread ties.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct ScorePlugin {
  std::vector<int64_t> (*score)(const CycleState&, const NodeList&);
  int64_t weight;
};

// Upstream's default score plugins and weights.
constexpr ScorePlugin kScorePlugins[] = {
    {score_taint_toleration, 3},   {score_node_affinity, 2},   {score_pod_topology_spread, 2},
    {score_inter_pod_affinity, 2}, {score_least_allocated, 1}, {score_balanced_allocation, 1},
    {score_image_locality, 1},
};

std::vector<int64_t> total_scores(const CycleState& state, const NodeList& feasible) {
  std::vector<int64_t> total(feasible.size(), 0);
  for (const ScorePlugin& plugin : kScorePlugins) {
    std::vector<int64_t> scores = plugin.score(state, feasible);
    for (size_t i = 0; i < feasible.size(); ++i) total[i] += scores[i] * plugin.weight;
  }
  return total;
}

// Reservoir sampling over the nodes with the highest score.
size_t select_host(const std::vector<int64_t>& scores, uint64_t seed) {
  size_t best = 0, ties = 1;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > scores[best]) {
      best = i;
      ties = 1;
    } else if (scores[i] == scores[best]) {
      ++ties;
      if (next_random(seed) % ties == 0) best = i;
    }
  }
  return best;
}

}  // namespace

size_t num_feasible_nodes_to_find(int32_t percentage, size_t num_nodes) {
  constexpr size_t kMinFeasibleNodes = 100;
  constexpr int64_t kMinPercentage = 5;
  if (num_nodes < kMinFeasibleNodes || percentage >= 100) return num_nodes;
  int64_t adaptive = percentage;
  if (adaptive <= 0) {
    adaptive = 50 - static_cast<int64_t>(num_nodes) / 125;
    if (adaptive < kMinPercentage) adaptive = kMinPercentage;
  }
  size_t n = num_nodes * static_cast<size_t>(adaptive) / 100;
  return n < kMinFeasibleNodes ? kMinFeasibleNodes : n;
}

ScheduleResult schedule(const Snapshot& snapshot, const PodInfo& pod,
                        const ScheduleOptions& options) {
  ScheduleResult result;
  size_t all = snapshot.size();
  result.next_start_index = all ? options.start_index % all : 0;
  if (all == 0) return result;
  CycleState state(snapshot, pod);
  FilterStatus pre = run_prefilters(state);
  if (!pre.ok()) {
    result.diagnosis.prefilter_message = pre.reasons.empty() ? "" : pre.reasons.front();
    result.diagnosis.prefilter_code = pre.code;
    for (const NodeInfo& n : snapshot.nodes())
      result.diagnosis.failures.push_back({n.node().name, pre});
    return result;
  }
  // A pod nominated by an earlier preemption goes to its node if it fits there now.
  if (!pod.nominated_node_name.empty()) {
    const NodeInfo* nominated = snapshot.find(pod.nominated_node_name);
    if (nominated && run_filters(state, *nominated).ok()) {
      result.node = nominated->node().name;
      result.evaluated_nodes = result.feasible_nodes = 1;
      return result;
    }
  }
  size_t wanted = num_feasible_nodes_to_find(options.percentage_of_nodes_to_score, all);
  NodeList feasible;
  feasible.reserve(wanted);
  size_t start = options.start_index % all, processed = 0;
  for (; processed < all && feasible.size() < wanted; ++processed) {
    const NodeInfo& node = snapshot.node((start + processed) % all);
    FilterStatus status = run_filters(state, node);
    if (status.ok()) {
      feasible.push_back(&node);
    } else {
      result.diagnosis.failures.push_back({node.node().name, std::move(status)});
    }
  }
  result.evaluated_nodes = processed;
  result.feasible_nodes = feasible.size();
  result.next_start_index = (start + processed) % all;
  if (feasible.empty()) return result;
  result.diagnosis.failures.clear();  // only kept for the unschedulable answer
  if (feasible.size() == 1) {
    result.node = feasible.front()->node().name;
    return result;
  }
  std::vector<int64_t> scores = total_scores(state, feasible);
  uint64_t seed = options.seed ^ std::hash<std::string>{}(pod.uid);
  size_t chosen = select_host(scores, seed);
  result.node = feasible[chosen]->node().name;
  result.score = scores[chosen];
  return result;
}

}  // namespace k3c::scheduler

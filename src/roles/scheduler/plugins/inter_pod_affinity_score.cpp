// InterPodAffinity, score half: per topology domain, + the weight of each preferred affinity
// term of the pod that an existing pod there matches, - for preferred anti-affinity; and
// symmetrically the existing pods' terms that select this pod (required affinity counts with
// upstream's hardPodAffinityWeight of 1). Scores are scaled between the lowest and highest.
#include <algorithm>
#include <limits>

#include "roles/scheduler/framework.h"
#include "roles/scheduler/pod_counter.h"

namespace k3c::scheduler {

namespace {

constexpr int64_t kHardPodAffinityWeight = 1;

struct DomainScores {
  std::unordered_map<std::string, std::unordered_map<std::string, int64_t>> by_key;

  void add(const std::string& key, const NodeModel& node, int64_t weight) {
    auto label = node.labels.find(key);
    if (label != node.labels.end() && weight != 0) by_key[key][label->second] += weight;
  }
};

void process_existing(const CycleState& state, const PodInfo& existing, const NodeModel& node,
                      DomainScores& scores) {
  const PodInfo& pod = state.pod;
  const NamespaceLabels& ns = state.snapshot.namespaces;
  for (const auto& w : pod.preferred_affinity) {
    if (affinity_term_matches(w.term, existing, ns))
      scores.add(w.term.topology_key, node, w.weight);
  }
  for (const auto& w : pod.preferred_anti_affinity) {
    if (affinity_term_matches(w.term, existing, ns))
      scores.add(w.term.topology_key, node, -w.weight);
  }
  for (const auto& t : existing.required_affinity) {
    if (affinity_term_matches(t, pod, ns)) scores.add(t.topology_key, node, kHardPodAffinityWeight);
  }
  for (const auto& w : existing.preferred_affinity) {
    if (affinity_term_matches(w.term, pod, ns)) scores.add(w.term.topology_key, node, w.weight);
  }
  for (const auto& w : existing.preferred_anti_affinity) {
    if (affinity_term_matches(w.term, pod, ns)) scores.add(w.term.topology_key, node, -w.weight);
  }
}

}  // namespace

std::vector<int64_t> score_inter_pod_affinity(const CycleState& state, const NodeList& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  const NamespaceLabels& ns = state.snapshot.namespaces;
  // The pod's preferred terms, weighted: + for affinity, - for anti-affinity.
  std::vector<std::pair<TermCounter, int64_t>> own;
  for (const auto& w : state.pod.preferred_affinity)
    own.push_back({TermCounter(w.term, ns), w.weight});
  for (const auto& w : state.pod.preferred_anti_affinity)
    own.push_back({TermCounter(w.term, ns), -int64_t{w.weight}});
  DomainScores domains;
  for (const auto& [counter, weight] : own) {
    counter.for_each_node(state.snapshot, [&](size_t n, int64_t count) {
      domains.add(counter.term().topology_key, state.snapshot.node(n).node(), weight * count);
    });
  }
  if (const auto* with_affinity = state.snapshot.nodes_with_affinity_pods()) {
    for (const auto& [position, unused] : *with_affinity) {
      const NodeInfo& node = state.snapshot.node(position);
      for (const PodPtr& p : node.pods_with_affinity()) {
        process_existing(state, *p, node.node(), domains);
      }
    }
  }
  if (domains.by_key.empty()) return scores;
  int64_t min = std::numeric_limits<int64_t>::max(), max = std::numeric_limits<int64_t>::min();
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (const auto& [key, values] : domains.by_key) {
      auto label = nodes[n]->node().labels.find(key);
      if (label == nodes[n]->node().labels.end()) continue;
      if (auto v = values.find(label->second); v != values.end()) scores[n] += v->second;
    }
    min = std::min(min, scores[n]);
    max = std::max(max, scores[n]);
  }
  for (int64_t& s : scores) {
    s = max - min > 0 ? static_cast<int64_t>(static_cast<double>(kMaxNodeScore) *
                                             (static_cast<double>(s - min) / (max - min)))
                      : 0;
  }
  return scores;
}

}  // namespace k3c::scheduler

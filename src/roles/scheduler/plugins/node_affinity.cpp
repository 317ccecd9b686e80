// NodeAffinity: spec.nodeSelector and required node affinity filter; preferred node affinity
// scores (sum of the weights of the matching terms, normalised).
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus filter_node_affinity(const CycleState& state, const NodeInfo& node) {
  if (pod_node_affinity_matches(state.pod, node.node())) return FilterStatus::success();
  return FilterStatus::fail(FilterCode::kUnresolvable, "NodeAffinity",
                            "node(s) didn't match Pod's node affinity/selector");
}

std::vector<int64_t> score_node_affinity(const CycleState& state, const NodeList& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  if (state.pod.preferred_node_affinity.empty()) return scores;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const PreferredSchedulingTerm& p : state.pod.preferred_node_affinity) {
      if (p.weight != 0 && node_selector_term_matches(p.term, nodes[i]->node()))
        scores[i] += p.weight;
    }
  }
  default_normalize(scores, /*reverse=*/false);
  return scores;
}

}  // namespace k3c::scheduler

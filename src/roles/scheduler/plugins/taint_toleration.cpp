// TaintToleration: NoSchedule/NoExecute taints the pod does not tolerate exclude the node
// (this is also how not-ready and unreachable nodes are avoided: the node lifecycle controller
// taints them); untolerated PreferNoSchedule taints lower its score.
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus filter_taint_toleration(const CycleState& state, const NodeInfo& node) {
  const Taint* taint = first_untolerated_taint(node.node().taints, state.pod.tolerations);
  if (!taint) return FilterStatus::success();
  return FilterStatus::fail(
      FilterCode::kUnresolvable, "TaintToleration",
      "node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}");
}

std::vector<int64_t> score_taint_toleration(const CycleState& state, const NodeList& nodes) {
  // Only tolerations that apply to PreferNoSchedule (or to every effect) count here.
  std::vector<Toleration> prefer;
  for (const Toleration& t : state.pod.tolerations) {
    if (t.effect == TaintEffect::kNone || t.effect == TaintEffect::kPreferNoSchedule)
      prefer.push_back(t);
  }
  std::vector<int64_t> scores(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const Taint& taint : nodes[i]->node().taints) {
      if (taint.effect == TaintEffect::kPreferNoSchedule && !tolerates_all(prefer, taint))
        ++scores[i];
    }
  }
  default_normalize(scores, /*reverse=*/true);
  return scores;
}

}  // namespace k3c::scheduler

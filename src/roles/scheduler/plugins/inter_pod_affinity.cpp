// InterPodAffinity, filter half: the pod's required affinity (some domain of the node's
// topology must hold pods matching all its terms — or, for the first pod of a group that
// matches its own terms, none anywhere), its required anti-affinity (no matching pod in the
// node's domain), and the symmetry of existing pods' required anti-affinity (no existing pod
// whose anti-affinity selects this pod in the node's domain).
#include <algorithm>
#include <string_view>

#include "roles/scheduler/framework.h"
#include "roles/scheduler/pod_counter.h"

namespace k3c::scheduler {

namespace {

void bump(TopologyCounts& counts, const std::string& key, const NodeModel& node, int64_t delta) {
  auto label = node.labels.find(key);
  if (label == node.labels.end()) return;
  auto [it, inserted] = counts.emplace(topology_pair(key, label->second), 0);
  it->second += delta;
  if (it->second == 0) counts.erase(it);  // "no pods" must look like no entry
}

bool matches_all(const std::vector<PodAffinityTerm>& terms, const PodInfo& pod,
                 const NamespaceLabels& namespaces) {
  if (terms.empty()) return false;
  return std::all_of(terms.begin(), terms.end(), [&](const PodAffinityTerm& t) {
    return affinity_term_matches(t, pod, namespaces);
  });
}

bool has_count(const TopologyCounts& counts, const std::string& key, const NodeModel& node) {
  auto label = node.labels.find(key);
  return label != node.labels.end() && counts.count(topology_pair(key, label->second));
}

}  // namespace

void inter_pod_update(CycleState& state, const PodInfo& existing, const NodeInfo& node, int delta) {
  const PodInfo& pod = state.pod;
  const NamespaceLabels& ns = state.snapshot.namespaces;
  for (const PodAffinityTerm& term : existing.required_anti_affinity) {
    if (affinity_term_matches(term, pod, ns))
      bump(state.inter_pod.existing_anti_affinity, term.topology_key, node.node(), delta);
  }
  // Terminating pods do not count for the pod's own terms (nor in the label index the
  // pre-filter counts them with).
  if (existing.terminating) return;
  if (!pod.required_affinity.empty() && matches_all(pod.required_affinity, existing, ns)) {
    for (const PodAffinityTerm& term : pod.required_affinity)
      bump(state.inter_pod.affinity, term.topology_key, node.node(), delta);
  }
  for (const PodAffinityTerm& term : pod.required_anti_affinity) {
    if (affinity_term_matches(term, existing, ns))
      bump(state.inter_pod.anti_affinity, term.topology_key, node.node(), delta);
  }
}

void prefilter_inter_pod_affinity(CycleState& state) {
  const PodInfo& pod = state.pod;
  const NamespaceLabels& ns = state.snapshot.namespaces;
  std::vector<TermCounter> affinity, anti;
  for (const PodAffinityTerm& t : pod.required_affinity) affinity.emplace_back(t, ns);
  for (const PodAffinityTerm& t : pod.required_anti_affinity) anti.emplace_back(t, ns);
  const Snapshot& snapshot = state.snapshot;
  for (const TermCounter& c : anti) {
    c.for_each_node(snapshot, [&](size_t n, int64_t count) {
      bump(state.inter_pod.anti_affinity, c.term().topology_key, snapshot.node(n).node(), count);
    });
  }
  if (affinity.size() == 1) {
    affinity[0].for_each_node(snapshot, [&](size_t n, int64_t count) {
      bump(state.inter_pod.affinity, affinity[0].term().topology_key, snapshot.node(n).node(),
           count);
    });
  }
  if (const auto* with_anti = snapshot.nodes_with_required_anti_affinity_pods()) {
    for (const auto& [position, unused] : *with_anti) {
      const NodeInfo& node = snapshot.node(position);
      for (const PodPtr& p : node.pods_with_required_anti_affinity()) {
        for (const PodAffinityTerm& term : p->required_anti_affinity) {
          if (affinity_term_matches(term, pod, ns))
            bump(state.inter_pod.existing_anti_affinity, term.topology_key, node.node(), +1);
        }
      }
    }
  }
  if (affinity.size() <= 1) return;
  // Several terms: pods count for affinity only when they match every one.
  for (const NodeInfo& node : snapshot.nodes()) {
    int64_t n = 0;
    for (const PodPtr& p : node.pods()) {
      n += !p->terminating && matches_all(pod.required_affinity, *p, ns);
    }
    if (n == 0) continue;
    for (const PodAffinityTerm& term : pod.required_affinity)
      bump(state.inter_pod.affinity, term.topology_key, node.node(), n);
  }
}

FilterStatus filter_inter_pod_affinity(const CycleState& state, const NodeInfo& node) {
  const PodInfo& pod = state.pod;
  const NodeModel& model = node.node();
  if (!pod.required_affinity.empty()) {
    bool pods_exist = true;
    for (const PodAffinityTerm& term : pod.required_affinity) {
      if (!model.labels.count(term.topology_key)) {
        return FilterStatus::fail(FilterCode::kUnresolvable, "InterPodAffinity",
                                  "node(s) didn't match pod affinity rules");
      }
      if (!has_count(state.inter_pod.affinity, term.topology_key, model)) pods_exist = false;
    }
    if (!pods_exist && !(state.inter_pod.affinity.empty() &&
                         matches_all(pod.required_affinity, pod, state.snapshot.namespaces))) {
      return FilterStatus::fail(FilterCode::kUnresolvable, "InterPodAffinity",
                                "node(s) didn't match pod affinity rules");
    }
  }
  for (const PodAffinityTerm& term : pod.required_anti_affinity) {
    if (has_count(state.inter_pod.anti_affinity, term.topology_key, model)) {
      return FilterStatus::fail(FilterCode::kUnschedulable, "InterPodAffinity",
                                "node(s) didn't match pod anti-affinity rules");
    }
  }
  for (const auto& [pair, count] : state.inter_pod.existing_anti_affinity) {
    std::string_view p = pair;
    size_t sep = p.find('\x1f');
    auto label = model.labels.find(p.substr(0, sep));
    if (label != model.labels.end() && label->second == p.substr(sep + 1)) {
      return FilterStatus::fail(FilterCode::kUnschedulable, "InterPodAffinity",
                                "node(s) didn't satisfy existing pods anti-affinity rules");
    }
  }
  return FilterStatus::success();
}

}  // namespace k3c::scheduler

// Matching rules shared by plugins: tolerations against taints, node selector terms against a
// node, pod affinity terms against a pod, host port conflicts.
#pragma once

#include <map>
#include <string>

#include "roles/scheduler/model.h"

namespace k3c::scheduler {

// Namespace name -> its labels, for namespaceSelector in pod affinity terms.
using NamespaceLabels = std::map<std::string, Labels, std::less<>>;

bool node_selector_term_matches(const NodeSelectorTerm& term, const NodeModel& node);
bool node_selector_matches(const NodeSelector& selector, const NodeModel& node);
// spec.nodeSelector and required node affinity together (NodeAffinity's filter).
bool pod_node_affinity_matches(const PodInfo& pod, const NodeModel& node);

// Whether `pod` is selected by `term` (its namespaces and label selector).
bool affinity_term_matches(const PodAffinityTerm& term, const PodInfo& pod,
                           const NamespaceLabels& namespaces);

// The first NoSchedule/NoExecute taint of `taints` that `tolerations` do not tolerate.
const Taint* first_untolerated_taint(const std::vector<Taint>& taints,
                                     const std::vector<Toleration>& tolerations);

}  // namespace k3c::scheduler

// Counting the pods on a node that a selector matches — the inner loop of topology spread and
// inter-pod affinity — through NodeInfo's label index where the selector allows it: a
// selector with a single-value In requirement (every matchLabels entry is one) only needs the
// pods carrying that label, and when it is the whole selector the index count is the answer.
#pragma once

#include <string>
#include <vector>

#include "roles/scheduler/matching.h"
#include "roles/scheduler/node_info.h"
#include "roles/scheduler/snapshot.h"

namespace k3c::scheduler {

// Pods of one namespace matched by a label selector (terminating pods do not count).
class PodCounter {
 public:
  PodCounter(const LabelSelector* selector, const std::string& ns);
  int64_t count(const NodeInfo& node) const;
  // Calls f(position, count) for the nodes of the snapshot with matching pods (count > 0);
  // through the snapshot's label index when the selector has an indexable requirement.
  template <typename F>
  void for_each_node(const Snapshot& snapshot, F&& f) const {
    if (!selector_) return;
    if (index_key_.empty()) {
      for (size_t i = 0; i < snapshot.size(); ++i) {
        if (int64_t n = count(snapshot.node(i)); n > 0) f(i, n);
      }
      return;
    }
    const Snapshot::LabelNodes* nodes = snapshot.nodes_with_label(index_key_);
    if (!nodes) return;
    for (const auto& [position, labelled] : *nodes) {
      int64_t n = exact_ ? labelled : count(snapshot.node(position));
      if (n > 0) f(position, n);
    }
  }

 private:
  const LabelSelector* selector_;  // nullptr: a null selector, matches nothing
  std::string ns_;
  std::string index_key_;  // empty: no indexable requirement, scan
  bool exact_ = false;     // the indexed requirement is the whole selector
};

// Pods matched by a pod affinity term: its namespaces (or namespace selector) and selector.
class TermCounter {
 public:
  TermCounter(const PodAffinityTerm& term, const NamespaceLabels& namespaces);
  int64_t count(const NodeInfo& node) const;
  // As PodCounter::for_each_node; a node may be reported once per namespace of the term.
  template <typename F>
  void for_each_node(const Snapshot& snapshot, F&& f) const {
    if (!term_->selector) return;
    if (term_->namespace_selector) {
      for (size_t i = 0; i < snapshot.size(); ++i) {
        if (int64_t n = count(snapshot.node(i)); n > 0) f(i, n);
      }
      return;
    }
    for (const PodCounter& c : per_namespace_) c.for_each_node(snapshot, f);
  }
  const PodAffinityTerm& term() const { return *term_; }

 private:
  const PodAffinityTerm* term_;
  const NamespaceLabels* namespaces_;
  std::vector<PodCounter> per_namespace_;  // empty with a namespace selector: scan
};

}  // namespace k3c::scheduler

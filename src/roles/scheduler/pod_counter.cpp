// Selector counts per node through the label index (see pod_counter.h).
#include "roles/scheduler/pod_counter.h"

namespace k3c::scheduler {

PodCounter::PodCounter(const LabelSelector* selector, const std::string& ns)
    : selector_(selector), ns_(ns) {
  if (!selector_) return;
  const auto& reqs = selector_->requirements();
  for (const auto& r : reqs) {
    bool single = (r.op == LabelSelector::Op::kIn || r.op == LabelSelector::Op::kEquals) &&
                  r.values.size() == 1;
    if (!single) continue;
    index_key_ = label_index_key(ns_, r.key, r.values[0]);
    exact_ = reqs.size() == 1;
    break;
  }
}

int64_t PodCounter::count(const NodeInfo& node) const {
  if (!selector_) return 0;
  if (!index_key_.empty()) {
    int64_t n = node.label_count(index_key_);
    if (n == 0 || exact_) return n;
  }
  int64_t n = 0;
  for (const PodPtr& p : node.pods()) {
    if (!p->terminating && p->namespace_ == ns_ && selector_->matches(p->labels)) ++n;
  }
  return n;
}

TermCounter::TermCounter(const PodAffinityTerm& term, const NamespaceLabels& namespaces)
    : term_(&term), namespaces_(&namespaces) {
  if (term.namespace_selector) return;
  for (const std::string& ns : term.namespaces)
    per_namespace_.emplace_back(term.selector ? &*term.selector : nullptr, ns);
}

int64_t TermCounter::count(const NodeInfo& node) const {
  if (!term_->selector) return 0;
  int64_t n = 0;
  if (!term_->namespace_selector) {
    for (const PodCounter& c : per_namespace_) n += c.count(node);
    return n;
  }
  for (const PodPtr& p : node.pods()) {
    if (!p->terminating && affinity_term_matches(*term_, *p, *namespaces_)) ++n;
  }
  return n;
}

}  // namespace k3c::scheduler

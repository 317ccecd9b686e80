// Matching rules shared by plugins (see matching.h).
#include "roles/scheduler/matching.h"

#include <algorithm>
#include <charconv>

namespace k3c::scheduler {

bool Toleration::tolerates(const Taint& taint) const {
  if (effect != TaintEffect::kNone && effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  return exists || value == taint.value;
}

bool tolerates_all(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return t.tolerates(taint); });
}

bool HostPort::conflicts_with(const HostPort& other) const {
  if (port != other.port || protocol != other.protocol) return false;
  return ip == other.ip || ip == "0.0.0.0" || other.ip == "0.0.0.0";
}

namespace {

std::optional<int64_t> to_int(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

bool requirement_matches(const NodeSelectorRequirement& r, const std::string* value) {
  using Op = NodeSelectorRequirement::Op;
  auto in_values = [&] {
    return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
  };
  switch (r.op) {
    case Op::kIn:
      return in_values();
    case Op::kNotIn:
      return !in_values();
    case Op::kExists:
      return value != nullptr;
    case Op::kDoesNotExist:
      return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      if (!value || r.values.size() != 1) return false;
      auto have = to_int(*value);
      auto want = to_int(r.values[0]);
      if (!have || !want) return false;
      return r.op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

}  // namespace

bool node_selector_term_matches(const NodeSelectorTerm& term, const NodeModel& node) {
  // A term without requirements selects nothing.
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions) {
    auto it = node.labels.find(r.key);
    if (!requirement_matches(r, it != node.labels.end() ? &it->second : nullptr)) return false;
  }
  for (const auto& r : term.match_fields) {
    // metadata.name is the only node field selectors may use.
    if (r.key != "metadata.name") return false;
    if (!requirement_matches(r, &node.name)) return false;
  }
  return true;
}

bool node_selector_matches(const NodeSelector& selector, const NodeModel& node) {
  return std::any_of(selector.terms.begin(), selector.terms.end(), [&](const NodeSelectorTerm& t) {
    return node_selector_term_matches(t, node);
  });
}

bool pod_node_affinity_matches(const PodInfo& pod, const NodeModel& node) {
  for (const auto& [key, value] : pod.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) return false;
  }
  return !pod.required_node_affinity || node_selector_matches(*pod.required_node_affinity, node);
}

bool affinity_term_matches(const PodAffinityTerm& term, const PodInfo& pod,
                           const NamespaceLabels& namespaces) {
  if (!term.selector) return false;
  bool ns_ok = std::find(term.namespaces.begin(), term.namespaces.end(), pod.namespace_) !=
               term.namespaces.end();
  if (!ns_ok && term.namespace_selector) {
    if (term.namespace_selector->empty()) {
      ns_ok = true;
    } else if (auto it = namespaces.find(pod.namespace_); it != namespaces.end()) {
      ns_ok = term.namespace_selector->matches(it->second);
    }
  }
  return ns_ok && term.selector->matches(pod.labels);
}

const Taint* first_untolerated_taint(const std::vector<Taint>& taints,
                                     const std::vector<Toleration>& tolerations) {
  for (const Taint& taint : taints) {
    if (taint.effect != TaintEffect::kNoSchedule && taint.effect != TaintEffect::kNoExecute)
      continue;
    if (!tolerates_all(tolerations, taint)) return &taint;
  }
  return nullptr;
}

}  // namespace k3c::scheduler

// JSON pieces shared by the Node and Pod parsers: labels, label selectors, node selector
// terms, taint effects, image names.
#include "roles/scheduler/parse_common.h"

#include <nlohmann/json.hpp>

namespace k3c::scheduler {

using json = nlohmann::json;

std::vector<std::string> string_list(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const json& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

Labels labels_from_json(const json& labels) {
  Labels out;
  if (!labels.is_object()) return out;
  for (const auto& [k, v] : labels.items()) {
    if (v.is_string()) out.emplace(k, v.get<std::string>());
  }
  return out;
}

std::optional<LabelSelector> label_selector_from_json(const json& selector) {
  if (!selector.is_object()) return std::nullopt;
  std::vector<LabelSelector::Requirement> reqs;
  const json& match_labels = api::member(selector, "matchLabels");
  if (match_labels.is_object()) {
    for (const auto& [k, v] : match_labels.items()) {
      if (v.is_string()) reqs.push_back({k, LabelSelector::Op::kIn, {v.get<std::string>()}});
    }
  }
  const json& expressions = api::member(selector, "matchExpressions");
  if (expressions.is_array()) {
    for (const json& e : expressions) {
      const std::string& op = api::text(e, "operator");
      LabelSelector::Op o;
      if (op == "In") {
        o = LabelSelector::Op::kIn;
      } else if (op == "NotIn") {
        o = LabelSelector::Op::kNotIn;
      } else if (op == "Exists") {
        o = LabelSelector::Op::kExists;
      } else if (op == "DoesNotExist") {
        o = LabelSelector::Op::kDoesNotExist;
      } else {
        // Validation rejects other operators; a selector we cannot read selects nothing.
        return std::nullopt;
      }
      reqs.push_back({api::text(e, "key"), o, string_list(api::member(e, "values"))});
    }
  }
  return LabelSelector::from_requirements(std::move(reqs));
}

static std::vector<NodeSelectorRequirement> requirements_from_json(const json& list) {
  std::vector<NodeSelectorRequirement> out;
  if (!list.is_array()) return out;
  for (const json& e : list) {
    NodeSelectorRequirement r;
    r.key = api::text(e, "key");
    const std::string& op = api::text(e, "operator");
    using Op = NodeSelectorRequirement::Op;
    if (op == "In") {
      r.op = Op::kIn;
    } else if (op == "NotIn") {
      r.op = Op::kNotIn;
    } else if (op == "Exists") {
      r.op = Op::kExists;
    } else if (op == "DoesNotExist") {
      r.op = Op::kDoesNotExist;
    } else if (op == "Gt") {
      r.op = Op::kGt;
    } else if (op == "Lt") {
      r.op = Op::kLt;
    } else {
      // An operator we do not know must not widen the match: make the term unsatisfiable.
      r.op = Op::kIn;
    }
    r.values = string_list(api::member(e, "values"));
    out.push_back(std::move(r));
  }
  return out;
}

NodeSelectorTerm node_selector_term_from_json(const json& term) {
  return {requirements_from_json(api::member(term, "matchExpressions")),
          requirements_from_json(api::member(term, "matchFields"))};
}

NodeSelector node_selector_from_json(const json& selector) {
  NodeSelector out;
  const json& terms = api::member(selector, "nodeSelectorTerms");
  if (!terms.is_array()) return out;
  for (const json& t : terms) out.terms.push_back(node_selector_term_from_json(t));
  return out;
}

TaintEffect taint_effect_from(const std::string& effect) {
  if (effect == "NoSchedule") return TaintEffect::kNoSchedule;
  if (effect == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (effect == "NoExecute") return TaintEffect::kNoExecute;
  return TaintEffect::kNone;
}

std::string normalized_image_name(const std::string& image) {
  // As upstream's ImageLocality: a reference without tag or digest means ":latest".
  size_t slash = image.rfind('/');
  size_t colon = image.rfind(':');
  bool has_tag = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  if (has_tag || image.find('@') != std::string::npos) return image;
  return image + ":latest";
}

}  // namespace k3c::scheduler

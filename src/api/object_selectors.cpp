#include "api/object_selectors.h"

namespace k3c::api {

using nlohmann::json;
using Op = LabelSelector::Op;

namespace {

std::optional<Op> op_of(const std::string& name) {
  if (name == "In") return Op::kIn;
  if (name == "NotIn") return Op::kNotIn;
  if (name == "Exists") return Op::kExists;
  if (name == "DoesNotExist") return Op::kDoesNotExist;
  return std::nullopt;
}

bool add_map(const json& map, std::vector<LabelSelector::Requirement>& reqs) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it.value().is_string()) return false;
    reqs.push_back({it.key(), Op::kEquals, {it.value().get<std::string>()}});
  }
  return true;
}

}  // namespace

std::optional<LabelSelector> label_selector_of(const json& s) {
  if (!s.is_object()) return std::nullopt;
  std::vector<LabelSelector::Requirement> reqs;
  if (auto ml = s.find("matchLabels"); ml != s.end() && ml->is_object()) {
    if (!add_map(*ml, reqs)) return std::nullopt;
  }
  if (auto me = s.find("matchExpressions"); me != s.end() && me->is_array()) {
    for (const auto& e : *me) {
      if (!e.is_object()) return std::nullopt;
      auto op = op_of(e.value("operator", ""));
      if (!op) return std::nullopt;
      std::vector<std::string> values;
      if (auto v = e.find("values"); v != e.end() && v->is_array()) {
        for (const auto& value : *v) {
          if (value.is_string()) values.push_back(value.get<std::string>());
        }
      }
      reqs.push_back({e.value("key", ""), *op, std::move(values)});
    }
  }
  if (reqs.empty()) return std::nullopt;
  return LabelSelector::from_requirements(std::move(reqs));
}

std::optional<LabelSelector> map_selector_of(const json& selector) {
  if (!selector.is_object() || selector.empty()) return std::nullopt;
  std::vector<LabelSelector::Requirement> reqs;
  if (!add_map(selector, reqs)) return std::nullopt;
  return LabelSelector::from_requirements(std::move(reqs));
}

Labels labels_of(const json& object) {
  Labels l;
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return l;
  auto labels = m->find("labels");
  if (labels == m->end() || !labels->is_object()) return l;
  for (auto it = labels->begin(); it != labels->end(); ++it) {
    if (it.value().is_string()) l[it.key()] = it.value().get<std::string>();
  }
  return l;
}

bool selects(const LabelSelector& selector, const json& object) {
  const json* labels = nullptr;
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    if (auto l = m->find("labels"); l != m->end() && l->is_object()) labels = &*l;
  }
  return selector.matches_with([&](const std::string& key) -> const std::string* {
    if (!labels) return nullptr;
    auto it = labels->find(key);
    return it != labels->end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
  });
}

bool selects(const LabelSelector& selector, const cjson::Value& object) {
  std::optional<cjson::Value> labels;
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    if (auto l = m->find("labels"); l != m->end() && l->is_object()) labels = l.value();
  }
  return selector.matches_with([&](const std::string& key) -> std::optional<std::string_view> {
    if (!labels) return std::nullopt;
    auto it = labels->find(key);
    if (it == labels->end() || !it->is_string()) return std::nullopt;
    return it->text();
  });
}

}  // namespace k3c::api

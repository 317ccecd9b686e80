// Field access and shared cell formats for the printers (see printer_cells.h).
#include "roles/apiserver/printer_cells.h"

#include <algorithm>

#include "core/text.h"

namespace k3c::apiserver::printers {

const json& at(const json& j, std::initializer_list<const char*> path) {
  static const json null_value;
  const json* cur = &j;
  for (const char* p : path) {
    if (!cur->is_object()) return null_value;
    auto it = cur->find(p);
    if (it == cur->end()) return null_value;
    cur = &*it;
  }
  return *cur;
}

std::string str(const json& j, std::initializer_list<const char*> path, std::string fallback) {
  const json& v = at(j, path);
  return v.is_string() ? v.get<std::string>() : fallback;
}

long long num(const json& j, std::initializer_list<const char*> path, long long fallback) {
  const json& v = at(j, path);
  return v.is_number_integer() ? v.get<long long>() : fallback;
}

bool flag(const json& j, std::initializer_list<const char*> path, bool fallback) {
  const json& v = at(j, path);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

long long count(const json& j, std::initializer_list<const char*> path) {
  const json& v = at(j, path);
  return v.is_array() || v.is_object() ? static_cast<long long>(v.size()) : 0;
}

std::string name_of(const json& o) { return str(o, {"metadata", "name"}); }

bool deleting(const json& o) { return at(o, {"metadata", "deletionTimestamp"}).is_string(); }

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  return k3c::join(parts, sep);
}

std::string format_labels(const json& labels) {
  if (!labels.is_object() || labels.empty()) return "<none>";
  std::vector<std::string> parts;
  for (auto& [k, v] : labels.items())  // nlohmann objects iterate in key order
    parts.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  return join(parts);
}

namespace {

// One requirement of a selector in upstream's text form, keyed for sorting.
std::pair<std::string, std::string> requirement(const json& expr) {
  std::string key = str(expr, {"key"});
  std::string op = str(expr, {"operator"});
  if (op == "Exists") return {key, key};
  if (op == "DoesNotExist") return {key, "!" + key};
  std::vector<std::string> values;
  const json& vs = at(expr, {"values"});
  if (vs.is_array())
    for (const auto& v : vs) values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  std::sort(values.begin(), values.end());
  return {key, key + (op == "NotIn" ? " notin (" : " in (") + join(values) + ")"};
}

}  // namespace

std::string selector_text(const json& selector) {
  std::vector<std::pair<std::string, std::string>> reqs;
  const json& labels = at(selector, {"matchLabels"});
  if (labels.is_object()) {
    for (auto& [k, v] : labels.items())
      reqs.push_back({k, k + "=" + (v.is_string() ? v.get<std::string>() : v.dump())});
  }
  const json& exprs = at(selector, {"matchExpressions"});
  if (exprs.is_array()) {
    for (const auto& e : exprs) reqs.push_back(requirement(e));
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> parts;
  for (auto& r : reqs) parts.push_back(std::move(r.second));
  return join(parts);
}

std::string format_label_selector(const json& selector) {
  std::string s = selector_text(selector);
  return s.empty() ? "<none>" : s;
}

std::string int_or_string(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return v.is_null() ? "" : v.dump();
}

std::string quantity(const json& v) { return int_or_string(v); }

std::pair<std::string, std::string> containers_images(const json& pod_spec) {
  std::vector<std::string> names, images;
  const json& cs = at(pod_spec, {"containers"});
  if (cs.is_array()) {
    for (const auto& c : cs) {
      names.push_back(str(c, {"name"}));
      images.push_back(str(c, {"image"}));
    }
  }
  return {join(names), join(images)};
}

std::string list_with_more(const std::vector<std::string>& all, size_t max, const char* empty) {
  if (all.empty()) return empty;
  if (all.size() <= max) return join(all);
  std::vector<std::string> shown(all.begin(), all.begin() + static_cast<long>(max));
  return join(shown) + " + " + std::to_string(all.size() - max) + " more...";
}

Column name_column() { return {"Name", "string", "name", "The name of the object.", 0}; }
Column age_column() { return {"Age", "string", "", "Time since the object was created.", 0}; }
Column text(std::string name, std::string description, int priority) {
  return {std::move(name), "string", "", std::move(description), priority};
}
Column integer(std::string name, std::string description, int priority) {
  return {std::move(name), "integer", "", std::move(description), priority};
}
Column boolean(std::string name, std::string description, int priority) {
  return {std::move(name), "boolean", "", std::move(description), priority};
}

}  // namespace k3c::apiserver::printers

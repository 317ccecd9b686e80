#include "roles/controllers/deployment/rollout_math.h"

#include <cmath>
#include <string_view>

#include "roles/controllers/common/name_hash.h"

namespace k3c::controllers {

using nlohmann::json;

int64_t scaled_value(const json& value, int64_t total, bool round_up) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (!value.is_string()) return 0;
  std::string text = value.get<std::string>();
  if (text.empty() || text.back() != '%') return 0;
  char* end = nullptr;
  double percent = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() - 1) return 0;
  double exact = percent * static_cast<double>(total) / 100.0;
  return static_cast<int64_t>(round_up ? std::ceil(exact) : std::floor(exact));
}

RolloutBounds rollout_bounds(const json& deployment) {
  const json& spec = deployment.value("spec", json::object());
  int64_t replicas = spec.value("replicas", int64_t{1});
  const json& rolling =
      spec.value("strategy", json::object()).value("rollingUpdate", json::object());
  RolloutBounds b;
  b.max_surge = scaled_value(rolling.value("maxSurge", json("25%")), replicas, true);
  b.max_unavailable = scaled_value(rolling.value("maxUnavailable", json("25%")), replicas, false);
  if (b.max_unavailable > replicas) b.max_unavailable = replicas;
  if (b.max_surge == 0 && b.max_unavailable == 0) b.max_unavailable = 1;
  return b;
}

std::string pod_template_hash(const json& pod_template, int64_t collision_count) {
  std::string text = template_without_hash(pod_template).dump();
  if (collision_count > 0) text += std::to_string(collision_count);
  return name_hash(text);
}

json template_without_hash(json pod_template) {
  if (auto m = pod_template.find("metadata"); m != pod_template.end() && m->is_object()) {
    // Clients send `creationTimestamp: null` in templates; it means "unset".
    if (auto t = m->find("creationTimestamp"); t != m->end() && t->is_null()) m->erase(t);
    if (auto l = m->find("labels"); l != m->end() && l->is_object()) {
      l->erase("pod-template-hash");
      if (l->empty()) m->erase("labels");
    }
  }
  return pod_template;
}

int64_t revision_of(const json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return 0;
  const json& annotations = m->value("annotations", json::object());
  std::string text = annotations.value("deployment.kubernetes.io/revision", "");
  if (text.empty() || text.size() > 18) return 0;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace k3c::controllers

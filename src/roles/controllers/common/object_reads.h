// Readers of a cached object in either form the informers keep (client/informer.h): an
// nlohmann tree, or a compact document's value (core/compact_json.h; the control plane's pods).
// What a sync asks of every pod it owns is written once here, for both. Tolerant as objects.h:
// a missing or mistyped field reads as empty.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string_view>

#include "client/informer.h"
#include "core/compact_json.h"

namespace k3c::controllers {

inline std::string_view text_of(const nlohmann::json& j) {
  return j.is_string() ? std::string_view(j.get_ref<const std::string&>()) : std::string_view();
}
inline std::string_view text_of(const cjson::Value& v) {
  return v.is_string() ? v.text() : std::string_view();
}

// Calls `read(object)` with the cached object's tree or document value.
template <typename Read>
decltype(auto) read_cached(const client::Informer::Cached& cached, Read read) {
  return cached.doc ? read(cached.doc->root()) : read(*cached.tree);
}

// The member's text ("" when it is missing or not a string).
template <typename J>
std::string_view member_text(const J& object, std::string_view key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it == object.end() ? std::string_view() : text_of(*it);
}

// The member (a null value when it is missing or `object` is not an object).
inline const nlohmann::json& member_or_null(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}
cjson::Value member_or_null(const cjson::Value& object, std::string_view key);

template <typename J>
std::string_view meta_text(const J& object, std::string_view field) {
  return member_text(member_or_null(object, "metadata"), field);
}

template <typename J>
bool deletion_marked(const J& object) {
  return !member_or_null(member_or_null(object, "metadata"), "deletionTimestamp").is_null();
}

// The uid of the ownerReference with controller=true ("" when there is none).
template <typename J>
std::string_view controller_uid(const J& object) {
  const auto& refs = member_or_null(member_or_null(object, "metadata"), "ownerReferences");
  if (!refs.is_array()) return {};
  for (const auto& ref : refs) {
    const auto& controller = member_or_null(ref, "controller");
    if (controller.is_boolean() && controller.template get<bool>()) return member_text(ref, "uid");
  }
  return {};
}

// The condition of that type in status.conditions: its status and lastTransitionTime ("" when
// absent).
struct ConditionRead {
  std::string_view status, last_transition;
};
template <typename J>
ConditionRead condition_read(const J& object, std::string_view type) {
  const auto& conditions = member_or_null(member_or_null(object, "status"), "conditions");
  if (!conditions.is_array()) return {};
  for (const auto& c : conditions) {
    if (member_text(c, "type") == type)
      return {member_text(c, "status"), member_text(c, "lastTransitionTime")};
  }
  return {};
}

// Not Succeeded or Failed, and not being deleted.
template <typename J>
bool pod_counts_active(const J& pod) {
  if (deletion_marked(pod)) return false;
  std::string_view phase = member_text(member_or_null(pod, "status"), "phase");
  return phase != "Succeeded" && phase != "Failed";
}

template <typename J>
bool pod_counts_ready(const J& pod) {
  return condition_read(pod, "Ready").status == "True";
}

// Ready for at least `min_ready_seconds` at `now` (upstream's IsPodAvailable).
bool available_since(std::string_view ready_transition, int64_t min_ready_seconds,
                     std::chrono::system_clock::time_point now);
template <typename J>
bool pod_counts_available(const J& pod, int64_t min_ready_seconds,
                          std::chrono::system_clock::time_point now) {
  ConditionRead ready = condition_read(pod, "Ready");
  if (ready.status != "True") return false;
  return min_ready_seconds <= 0 || available_since(ready.last_transition, min_ready_seconds, now);
}

}  // namespace k3c::controllers

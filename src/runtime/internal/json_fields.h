// Reading fields of JSON from outside (manifests, indexes, registry answers) without
// nlohmann's value(), which throws when a field has another type than its default: a string
// field that is missing or not a string reads as "", a number field as the fallback.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace k3c::runtime::internal {

inline std::string string_field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline int64_t int_field(const nlohmann::json& object, std::string_view key, int64_t fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

}  // namespace k3c::runtime::internal

// Tolerant readers of one JSON member, for admission code that reads objects whose shape was
// not validated yet: a missing member or a non-object parent reads as null / "".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace k3c::apiserver {

inline const nlohmann::json& member(const nlohmann::json& o, const char* key) {
  static const nlohmann::json null;
  if (!o.is_object()) return null;
  auto it = o.find(key);
  return it == o.end() ? null : *it;
}

inline std::string text(const nlohmann::json& o, const char* key) {
  const nlohmann::json& v = member(o, key);
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace k3c::apiserver

// Tolerant readers of one JSON member, for code that reads objects whose shape was not
// validated (yet): admission plugins, and controllers reading informer caches. A missing
// member or a non-object parent reads as null / "".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace k3c::api {

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

}  // namespace k3c::api

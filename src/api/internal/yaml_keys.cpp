// Key checking for src/api's YAML data files (see yaml_keys.h).
#include "api/internal/yaml_keys.h"

#include <algorithm>

namespace k3c::api::internal {

Status check_yaml_keys(const YAML::Node& node, std::initializer_list<std::string_view> allowed,
                       std::string_view prefix, const std::string& where) {
  const std::string place = std::string(prefix) + where + ": ";
  if (!node.IsMap()) return error(Code::kInvalid, place + "expected a mapping");
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return error(Code::kInvalid, place + "unknown field \"" + key + "\"");
    }
  }
  return Status::ok();
}

}  // namespace k3c::api::internal

// Key checking for the YAML data files src/api reads (resources.yaml, schemas/*.yaml): a
// misspelt key is an error rather than a silent fallback to a default.
#pragma once

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::api::internal {

// kInvalid "<prefix><where>: expected a mapping" or "...: unknown field \"k\"" unless `node`
// is a mapping whose keys are all in `allowed`.
Status check_yaml_keys(const YAML::Node& node, std::initializer_list<std::string_view> allowed,
                       std::string_view prefix, const std::string& where);

}  // namespace k3c::api::internal

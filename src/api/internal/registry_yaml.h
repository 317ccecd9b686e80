// Reads the resources.yaml format (doc/api-registry.md) into groups and resources, applying
// the documented defaults. Consistency across entries (duplicates, unknown group-versions)
// is checked by ResourceRegistry::create, not here.
#pragma once

#include <string_view>
#include <vector>

#include "api/registry.h"
#include "core/status.h"

namespace k3c::api::internal {

struct RegistryData {
  std::vector<ApiGroup> groups;  // file order
  std::vector<Resource> resources;
};

// kInvalid with a message naming the entry on a YAML syntax error, a missing or unknown
// field, or a value of the wrong type. Never throws.
Result<RegistryData> parse_registry_yaml(std::string_view text);

}  // namespace k3c::api::internal

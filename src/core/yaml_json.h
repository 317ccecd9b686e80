// YAML to JSON, for inputs Kubernetes accepts as YAML (request bodies with
// Content-Type application/yaml, manifests, config files): scalars resolve as YAML 1.2's
// core schema does (true/false, integers, floats, null/~/empty), quoted scalars stay
// strings. A stream of several documents gives each one.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c {

// kBadRequest with the parser's line and column when the text is not YAML, or when it nests
// deeper than `max_depth`.
Result<nlohmann::json> yaml_to_json(std::string_view text, int max_depth = 100);
Result<std::vector<nlohmann::json>> yaml_documents_to_json(std::string_view text,
                                                           int max_depth = 100);

}  // namespace k3c

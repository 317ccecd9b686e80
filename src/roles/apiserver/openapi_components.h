// OpenAPI v3 `components.schemas` generated from the project's schema descriptions
// (DESIGN.md decision 2): what `kubectl explain` reads, and the patch metadata
// (x-kubernetes-patch-merge-key, list types) client-side tools look for.
//
// Names follow upstream's definition names (io.k8s.api.apps.v1.Deployment,
// io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta), because kubectl finds a kind by the
// x-kubernetes-group-version-kind extension but users and tools know the names.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/registry.h"
#include "api/schema.h"
#include "api/schema_descriptions.h"

namespace k3c::apiserver {

// Upstream's definition name for a schema type ("core.v1.Pod" -> "io.k8s.api.core.v1.Pod").
std::string openapi_definition_name(const std::string& qualified_type);

// The schemas of `kinds` and every type they reach, keyed by definition name, with the
// `words` for types and fields as their descriptions (none when nullptr). Kinds without a
// schema are left out (explain then says it cannot find them).
nlohmann::json openapi_components(const api::SchemaSet& schemas,
                                  const std::vector<api::GroupVersionKind>& kinds,
                                  const api::SchemaDescriptions* words);

}  // namespace k3c::apiserver

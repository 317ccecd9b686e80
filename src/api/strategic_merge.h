// Strategic merge patch (Content-Type application/strategic-merge-patch+json), with
// upstream's semantics (k8s.io/apimachinery/pkg/util/strategicpatch, the server side):
// objects merge recursively and null deletes; lists whose field has patchStrategy "merge"
// merge element-wise by the field's patchMergeKey (lists of scalars become unions); other
// lists replace. Directives: `$patch: replace|delete` in objects, `$patch:
// replace|delete` as list elements, `$retainKeys`, `$setElementOrder/<field>` and
// `$deleteFromPrimitiveList/<field>`. The merge keys and strategies come from the schemas
// (api/schema.h); a field or kind without schema data behaves as a JSON merge patch (its
// lists replace).
#pragma once

#include <nlohmann/json.hpp>

#include "api/schema.h"
#include "core/status.h"

namespace k3c::api {

// Applies `patch` to `original` (both JSON objects). `type` is the schema of the object's
// kind (SchemaSet::kind), nullptr when there is none. Errors carry upstream's texts:
// kBadRequest for malformed directives and patches (where upstream answers 500 for some,
// we answer 400: they are the client's mistakes), kInvalid (422) for lists of lists.
Result<nlohmann::json> apply_strategic_merge_patch(const nlohmann::json& original,
                                                   const nlohmann::json& patch,
                                                   const MessageType* type);

}  // namespace k3c::api

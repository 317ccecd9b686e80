// JSON patch (RFC 6902) and JSON merge patch (RFC 7386) on nlohmann::json documents, with
// errors worded as the API server words them. Strategic merge patch and server-side apply
// build on these with the merge keys from the schemas.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "core/status.h"

namespace k3c::api {

// Applies an RFC 6902 patch (an array of operations). kInvalid/kBadRequest on a malformed
// patch or an operation that does not apply (missing path, failed test).
Result<nlohmann::json> apply_json_patch(const nlohmann::json& document,
                                        const nlohmann::json& patch);

// Applies an RFC 7386 merge patch: objects merge recursively, null deletes, everything else
// (arrays included) replaces.
nlohmann::json apply_merge_patch(const nlohmann::json& document, const nlohmann::json& patch);

// Limits on what a patch may do to the document, against deeply nested or huge inputs.
inline constexpr size_t kMaxJsonPatchOperations = 10000;
inline constexpr int kMaxJsonDepth = 100;
// The nesting depth of a document (scalars are 0), counted no further than
// kMaxJsonDepth + 2: deeper documents give that, with bounded recursion.
int json_depth(const nlohmann::json& value);

}  // namespace k3c::api

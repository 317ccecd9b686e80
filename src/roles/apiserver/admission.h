// What every create, update and patch goes through between decoding and the store, driven by
// the schemas (src/api/validation.h, strict_json.h):
//   - fieldValidation (Strict, Warn, Ignore; Warn when absent, as upstream since 1.27):
//     unknown fields of fully described kinds and duplicate JSON fields are a 400 under
//     Strict, `Warning: 299` headers under Warn, silently dropped under Ignore;
//   - defaulting (schema defaults and per-type hooks) and validation (422 Invalid with
//     upstream's causes), with the stored object for immutable fields on update.
//
// Thread-safety: pure functions over their arguments.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/registry.h"
#include "api/schema.h"
#include "http/http.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {

enum class FieldValidation { kIgnore, kWarn, kStrict };

// The query options of a create, update or patch, checked as upstream's
// ValidateCreateOptions (UpdateOptions, PatchOptions) checks them: every dryRun value is
// "All", fieldValidation is Strict, Warn, Ignore or "". All problems go into one 422
// `CreateOptions.meta.k8s.io "" is invalid: ...`. Returns the fieldValidation directive.
ApiResult<FieldValidation> write_options(const http::Request& request);

// What upstream's ValidateDryRun says of dryRun values other than "All" (field "dryRun",
// `Unsupported value: []string{"x"}: supported values: "All"`); nullopt when there are none.
std::optional<StatusCause> dry_run_problem(const std::vector<std::string>& values);

struct DecodedObject {
  nlohmann::json object;
  std::vector<std::string> warnings;  // for the response's Warning headers
};

// A create or update body, decoded (decode_body) and checked for unknown and duplicate
// fields under `mode`: under Strict a 400 `<Kind> in version "<v>" cannot be handled as a
// <Kind>: strict decoding error: unknown field "spec.foo", ...`.
ApiResult<DecodedObject> decode_object(const http::Request& request, const BodyCodecs& codecs,
                                       const api::Resource& resource, FieldValidation mode);

// The unknown fields of a patched object (dropped unless Strict); under Strict a 400
// `strict decoding error: ...`. Returns the warnings to send.
ApiResult<std::vector<std::string>> check_patched(nlohmann::json& object,
                                                  const api::SchemaSet& schemas,
                                                  const api::Resource& resource,
                                                  FieldValidation mode);

// The two halves of default_and_validate, for callers that run mutating admission between
// them (as upstream: decode and default, mutate, validate).
void apply_object_defaults(nlohmann::json& object, const api::SchemaSet& schemas,
                           const api::Resource& resource);
std::optional<ApiError> validate_object(const nlohmann::json& object, const nlohmann::json* old,
                                        const api::SchemaSet& schemas,
                                        const api::Resource& resource);

// Applies defaults to `object` and validates it (`old`: the stored object on update, null on
// create). A 422 Invalid naming the kind and object, with one cause per field error.
std::optional<ApiError> default_and_validate(nlohmann::json& object, const nlohmann::json* old,
                                             const api::SchemaSet& schemas,
                                             const api::Resource& resource);

// Adds `Warning: 299 - "<text>"` headers, one per warning, as upstream sends them.
void add_warnings(http::Response& response, const std::vector<std::string>& warnings);

}  // namespace k3c::apiserver

// Unknown and duplicate fields, for the API server's fieldValidation (Strict, Warn, Ignore):
// what upstream's strict decoder reports as `unknown field "spec.foo"` and
// `duplicate field "metadata.name"`, with upstream's paths (`spec.containers[0].foo`).
// Unknown fields are only reported against a complete schema (SchemaSet::complete): for a
// kind not fully described, unknown fields are preserved, never reported or dropped.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema.h"

namespace k3c::api {

struct CheckedJson {
  nlohmann::json value;
  // `duplicate field "a.b"` and `unknown field "a.b"`, in document order. A field that is
  // both unknown and repeated is reported once, as unknown.
  std::vector<std::string> problems;
};

// Parses JSON text, reporting repeated keys (the last one wins, as in Go) and, when `type`
// is given, fields the type does not describe (a top-level apiVersion and kind are always
// known). With `drop_unknown` those fields are left out of the value. nullopt when the text
// is not JSON (the caller reports the parse error).
std::optional<CheckedJson> parse_checked(std::string_view text, const MessageType* type,
                                         bool drop_unknown);

// The unknown fields of an already decoded document (a YAML body, a patched object), in
// the document's key order; with `drop` they are removed.
std::vector<std::string> unknown_fields(nlohmann::json& document, const MessageType& type,
                                        bool drop);

// The first value whose JSON type does not fit its field (a number where a string belongs),
// worded as upstream's decoder words it: `json: cannot unmarshal number into Go struct field
// ServiceSpec.spec.type of type string`. nullopt when every value the schema describes fits.
std::optional<std::string> type_mismatch(const nlohmann::json& document, const MessageType& type);

}  // namespace k3c::api

// Our own words for the schema types and their fields (src/api/schemas/descriptions/*.yaml,
// doc/schemas.md "Descriptions"): what `kubectl explain` prints. Kept apart from the
// SchemaSet and loaded on demand, because only the OpenAPI documents need them and most
// servers never render those: idle memory does not pay for the text.
//
// Ownership and threads: an immutable value once loaded; any thread may read it. It names
// types by their qualified names, so it fits any copy of the SchemaSet it was checked against.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "api/schema.h"
#include "core/status.h"

namespace k3c::api {

class SchemaDescriptions {
 public:
  // The embedded description files, checked against `schemas`.
  static Result<SchemaDescriptions> builtin(const SchemaSet& schemas);
  // Parses description files (name for messages, YAML text). kInvalid naming the file, type
  // and field for a syntax error, an unknown type or field, an empty text or a second
  // description of the same thing.
  static Result<SchemaDescriptions> from_yaml(const SchemaSet& schemas,
                                              const SchemaSet::Files& files);

  // The words for a type, or "" when it has none.
  std::string_view type(const MessageType& type) const;
  // The words for a field of `type` (by JSON name), or "".
  std::string_view field(const MessageType& type, std::string_view field) const;

 private:
  struct Words {
    std::string type;
    std::map<std::string, std::string, std::less<>> fields;
  };
  std::map<std::string, Words, std::less<>> types_;  // by qualified type name
};

}  // namespace k3c::api

// The loaded schema tables (shared by the schema loader and the rules overlay) and the
// overlay itself: src/api/schemas/rules/*.yaml attach validation and defaulting rules to
// fields the fact files describe (doc/schemas.md, "Rules").
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "api/schema.h"

namespace k3c::api {

struct SchemaSet::Tables {
  std::map<std::string, std::unique_ptr<MessageType>, std::less<>> types;
  std::map<std::string, const MessageType*, std::less<>> kinds;  // "group/version/Kind"
  std::set<std::string, std::less<>> complete_kinds;             // "group/version/Kind"
};

namespace internal {

std::string kind_key(std::string_view group, std::string_view version, std::string_view kind);

// Lays one rules file over the tables. kInvalid naming the file, type and field for an
// unknown type or field, an unknown rule or format, or a rule that does not fit the field.
Status apply_rules(SchemaSet::Tables& tables, const std::string& file, std::string_view text);

// The rules files embedded from src/api/schemas/rules/ (see CMakeLists.txt).
SchemaSet::Files builtin_rules();

}  // namespace internal
}  // namespace k3c::api

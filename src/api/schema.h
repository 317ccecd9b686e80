// The schemas of the built-in API types: per type its fields, per field the JSON name, the
// value type, the protobuf field number and the rules later stages read (keepZero, default,
// required, enum, immutable, list type and map keys, patch merge key and strategy). The data
// is YAML under src/api/schemas/ (format: doc/schemas.md), embedded at build time and
// interpreted here; no C++ is written per kind.
//
// Ownership and threads: a SchemaSet is an immutable value; copies share one read-only
// table, so any thread may use it and the MessageType/Field pointers it hands out live as
// long as any copy of the set.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/registry.h"
#include "core/status.h"

namespace k3c::api {

struct MessageType;

// What a field holds. Scalars and the special types are leaves; kList and kMap wrap an
// element type (map keys are always strings); kMessage points at a named type.
struct FieldType {
  enum class Kind : uint8_t {
    kString,
    kInt32,
    kInt64,
    kBool,
    kDouble,
    kBytes,  // plain values
    kTime,
    kMicroTime,
    kDuration,
    kQuantity,
    kIntOrString,
    kRawExtension,  // special types
    kMessage,
    kList,
    kMap,
  };
  Kind kind = Kind::kString;
  const MessageType* message = nullptr;      // kMessage
  std::shared_ptr<const FieldType> element;  // kList, kMap: element / value type
  std::string spelling;                      // as written in the schema ("[]Container")

  bool is_scalar() const { return kind < Kind::kMessage; }
};

struct Field {
  std::string name;  // JSON name; empty for an inline field
  int number = 0;    // protobuf field number
  FieldType type;
  // The field's message type is embedded: its fields appear directly in this object's JSON
  // (Go's `json:",inline"`), while protobuf still carries it as a nested message.
  bool inline_fields = false;
  // A zero value received in protobuf is a real value (Go pointer fields, fields without
  // omitempty) instead of "not set". Messages, lists and maps are never dropped.
  bool keep_zero = false;
  // Rules for validation, defaulting and patches (read by later stages).
  nlohmann::json default_value;  // null when there is none
  bool required = false;
  bool immutable = false;
  std::vector<std::string> enum_values;
  std::string list_type;  // "", "atomic", "set" or "map"
  std::vector<std::string> list_map_keys;
  std::string patch_merge_key;
  std::string patch_strategy;
  // From the rules overlay (src/api/schemas/rules/, doc/schemas.md): a named check of a
  // string value ("dns1123-label", "dns1123-subdomain", "qualified-name", "label-value") and
  // an inclusive range of a number.
  std::string format;
  std::optional<int64_t> minimum;
  std::optional<int64_t> maximum;
};

struct MessageType {
  std::string name;  // qualified: "core.v1.Container"
  // The JSON form is not an object but the value of one field: the highest-numbered one
  // that is set (`oneOf: true`; upstream's JSONSchemaPropsOrBool/OrArray/OrStringArray,
  // whose Go types marshal themselves as a bool, a schema or a list).
  bool one_of = false;
  std::vector<Field> fields;   // in field-number order
  std::vector<int> by_number;  // field number -> index in fields, -1 when unused

  const Field* field_by_number(uint64_t number) const {
    if (number >= by_number.size() || by_number[number] < 0) return nullptr;
    return &fields[static_cast<size_t>(by_number[number])];
  }
  const Field* field_by_name(std::string_view json_name) const;
  // The field whose JSON key is `json_name`, looking through inlined message fields (whose
  // own fields appear at this level of the JSON form).
  const Field* json_field(std::string_view json_name) const;
};

class SchemaSet {
 public:
  // The built-in schemas from the files embedded from src/api/schemas/.
  static Result<SchemaSet> builtin();
  // Parses schema files (name for messages, YAML text), then the rules files laid over
  // them. kInvalid with the file, type and field on a syntax error or inconsistent data:
  // unknown type, duplicate number or name, a kind without its type, a rule on a field it
  // does not fit or on a field that does not exist.
  using Files = std::vector<std::pair<std::string, std::string_view>>;
  static Result<SchemaSet> from_yaml(const Files& files, const Files& rules = {});

  // A type by qualified name ("meta.v1.ObjectMeta"), or nullptr.
  const MessageType* type(std::string_view qualified_name) const;
  // The top-level type of a group-version-kind, or nullptr.
  const MessageType* kind(const GroupVersionKind& gvk) const;
  // Whether every field of the kind's whole type tree is described (a rules file says so):
  // only then are fields the schema does not know reported as unknown (fieldValidation).
  bool complete(const GroupVersionKind& gvk) const;
  size_t type_count() const;
  size_t kind_count() const;

  struct Tables;  // the loaded data (schema.cpp)

 private:
  explicit SchemaSet(std::shared_ptr<const Tables> tables) : t_(std::move(tables)) {}
  std::shared_ptr<const Tables> t_;
};

}  // namespace k3c::api

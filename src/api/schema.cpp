// Loads the schema YAML files (doc/schemas.md) into an immutable SchemaSet. Two passes: the
// first names every type of every file (so references may point forwards and across files),
// the second reads the fields and resolves their types.
#include "api/schema.h"

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <set>

#include "api/internal/schema_rules.h"
#include "api/internal/yaml_keys.h"
#include "core/yaml_json.h"

// The embedded schema files (see CMakeLists.txt).
extern const std::string_view k3c_embedded_api_schema_meta;
extern const std::string_view k3c_embedded_api_schema_core;
extern const std::string_view k3c_embedded_api_schema_apps;
extern const std::string_view k3c_embedded_api_schema_batch;
extern const std::string_view k3c_embedded_api_schema_authentication;
extern const std::string_view k3c_embedded_api_schema_authorization;
extern const std::string_view k3c_embedded_api_schema_autoscaling;
extern const std::string_view k3c_embedded_api_schema_autoscaling_v2;
extern const std::string_view k3c_embedded_api_schema_admissionregistration;
extern const std::string_view k3c_embedded_api_schema_apiextensions;
extern const std::string_view k3c_embedded_api_schema_certificates;
extern const std::string_view k3c_embedded_api_schema_coordination;
extern const std::string_view k3c_embedded_api_schema_discovery;
extern const std::string_view k3c_embedded_api_schema_events;
extern const std::string_view k3c_embedded_api_schema_networking;
extern const std::string_view k3c_embedded_api_schema_node;
extern const std::string_view k3c_embedded_api_schema_policy;
extern const std::string_view k3c_embedded_api_schema_rbac;
extern const std::string_view k3c_embedded_api_schema_scheduling;
extern const std::string_view k3c_embedded_api_schema_storage;

namespace k3c::api {

namespace {

using Tables = SchemaSet::Tables;

// Field numbers above this would make the by-number index large; upstream's stay far below.
constexpr int kMaxFieldNumber = 4096;

Status schema_invalid(const std::string& where, const std::string& what) {
  return error(Code::kInvalid, "schema " + where + ": " + what);
}

Status check_schema_keys(const YAML::Node& node, std::initializer_list<std::string_view> allowed,
                         const std::string& where) {
  return internal::check_yaml_keys(node, allowed, "schema ", where);
}

const std::map<std::string_view, FieldType::Kind> kLeafTypes = {
    {"string", FieldType::Kind::kString},
    {"int32", FieldType::Kind::kInt32},
    {"int64", FieldType::Kind::kInt64},
    {"bool", FieldType::Kind::kBool},
    {"double", FieldType::Kind::kDouble},
    {"bytes", FieldType::Kind::kBytes},
    {"Time", FieldType::Kind::kTime},
    {"MicroTime", FieldType::Kind::kMicroTime},
    {"Duration", FieldType::Kind::kDuration},
    {"Quantity", FieldType::Kind::kQuantity},
    {"IntOrString", FieldType::Kind::kIntOrString},
    {"RawExtension", FieldType::Kind::kRawExtension},
};

// "[]X", "map[string]X", a leaf type, a type of this package ("Container") or a qualified
// one ("meta.v1.ObjectMeta").
Result<FieldType> parse_type(std::string_view spelling, const std::string& package,
                             const Tables& tables, const std::string& where) {
  FieldType t;
  t.spelling = std::string(spelling);
  auto nested = [&](std::string_view inner, FieldType::Kind kind) -> Result<FieldType> {
    ASSIGN_OR_RETURN(FieldType element, parse_type(inner, package, tables, where));
    t.kind = kind;
    t.element = std::make_shared<const FieldType>(std::move(element));
    return t;
  };
  if (spelling.starts_with("[]")) return nested(spelling.substr(2), FieldType::Kind::kList);
  if (spelling.starts_with("map[")) {
    if (!spelling.starts_with("map[string]"))
      return schema_invalid(where, "map keys must be strings");
    return nested(spelling.substr(11), FieldType::Kind::kMap);
  }
  if (auto leaf = kLeafTypes.find(spelling); leaf != kLeafTypes.end()) {
    t.kind = leaf->second;
    return t;
  }
  std::string qualified = spelling.find('.') == std::string_view::npos
                              ? package + "." + std::string(spelling)
                              : std::string(spelling);
  auto it = tables.types.find(qualified);
  if (it == tables.types.end()) return schema_invalid(where, "unknown type \"" + t.spelling + "\"");
  t.kind = FieldType::Kind::kMessage;
  t.message = it->second.get();
  return t;
}

std::vector<std::string> strings(const YAML::Node& node) {
  return node ? node.as<std::vector<std::string>>() : std::vector<std::string>{};
}

Result<Field> parse_field(const YAML::Node& node, const std::string& package, const Tables& tables,
                          const std::string& where) {
  RETURN_IF_ERROR(check_schema_keys(
      node,
      {"name", "inline", "number", "type", "keepZero", "default", "required", "enum", "immutable",
       "listType", "listMapKeys", "patchMergeKey", "patchStrategy"},
      where));
  Field f;
  f.name = node["name"] ? node["name"].as<std::string>() : "";
  f.inline_fields = node["inline"] && node["inline"].as<bool>();
  if (f.name.empty() != f.inline_fields)
    return schema_invalid(where, "a field has either a name or inline: true");
  if (!node["number"] || !node["type"])
    return schema_invalid(where, "\"number\" and \"type\" are required");
  f.number = node["number"].as<int>();
  if (f.number < 1 || f.number > kMaxFieldNumber) {
    return schema_invalid(where, "field number " + std::to_string(f.number) + " is out of range");
  }
  ASSIGN_OR_RETURN(f.type, parse_type(node["type"].as<std::string>(), package, tables, where));
  if (f.inline_fields && f.type.kind != FieldType::Kind::kMessage) {
    return schema_invalid(where, "only a message type can be inline");
  }
  f.keep_zero = node["keepZero"] && node["keepZero"].as<bool>();
  if (f.keep_zero && !f.type.is_scalar())
    return schema_invalid(where, "keepZero is for scalar fields");
  if (node["default"]) {
    auto d = yaml_to_json(YAML::Dump(node["default"]));
    if (!d.is_ok()) return schema_invalid(where, "default: " + d.status().message());
    f.default_value = std::move(d).value();
  }
  f.required = node["required"] && node["required"].as<bool>();
  f.immutable = node["immutable"] && node["immutable"].as<bool>();
  f.enum_values = strings(node["enum"]);
  f.list_type = node["listType"] ? node["listType"].as<std::string>() : "";
  f.list_map_keys = strings(node["listMapKeys"]);
  f.patch_merge_key = node["patchMergeKey"] ? node["patchMergeKey"].as<std::string>() : "";
  f.patch_strategy = node["patchStrategy"] ? node["patchStrategy"].as<std::string>() : "";
  if (!f.list_type.empty()) {
    if (f.type.kind != FieldType::Kind::kList)
      return schema_invalid(where, "listType is for lists");
    if (f.list_type != "atomic" && f.list_type != "set" && f.list_type != "map") {
      return schema_invalid(where, "listType must be atomic, set or map");
    }
  }
  if (!f.list_map_keys.empty() && f.list_type != "map") {
    return schema_invalid(where, "listMapKeys needs listType: map");
  }
  return f;
}

Status parse_fields(const YAML::Node& node, const std::string& package, const Tables& tables,
                    MessageType& type, const std::string& where) {
  RETURN_IF_ERROR(check_schema_keys(node, {"fields", "oneOf"}, where));
  type.one_of = node["oneOf"] && node["oneOf"].as<bool>();
  const YAML::Node fields = node["fields"];
  if (!fields || !fields.IsSequence()) return schema_invalid(where, "\"fields\" must be a list");
  std::set<std::string, std::less<>> names;
  for (const auto& fnode : fields) {
    std::string fwhere =
        where + "." +
        (fnode["name"] ? fnode["name"].as<std::string>()
                       : "#" + (fnode["number"] ? fnode["number"].as<std::string>() : "?"));
    ASSIGN_OR_RETURN(Field f, parse_field(fnode, package, tables, fwhere));
    if (type.one_of && f.inline_fields)
      return schema_invalid(fwhere, "a oneOf type has no inline fields");
    if (!f.name.empty() && !names.insert(f.name).second)
      return schema_invalid(fwhere, "duplicate field name");
    if (type.field_by_number(static_cast<uint64_t>(f.number))) {
      return schema_invalid(fwhere, "duplicate field number " + std::to_string(f.number));
    }
    if (type.by_number.size() <= static_cast<size_t>(f.number))
      type.by_number.resize(f.number + 1, -1);
    type.by_number[f.number] = static_cast<int>(type.fields.size());
    type.fields.push_back(std::move(f));
  }
  // Keep the fields in number order (the by-number index follows).
  std::vector<Field> sorted;
  sorted.reserve(type.fields.size());  // exact: the schemas live as long as the process
  for (int index : type.by_number) {
    if (index >= 0) sorted.push_back(std::move(type.fields[static_cast<size_t>(index)]));
  }
  type.fields = std::move(sorted);
  int next = 0;
  for (int& index : type.by_number) {
    if (index >= 0) index = next++;
  }
  return Status::ok();
}

struct File {
  std::string name;
  YAML::Node root;
  std::string package;
};

// Pass 1: the package, the type names and the kinds of one file.
Status declare(File& file, Tables& tables) {
  RETURN_IF_ERROR(check_schema_keys(file.root, {"package", "kinds", "types"}, file.name));
  if (!file.root["package"] || !file.root["types"] || !file.root["types"].IsMap()) {
    return schema_invalid(file.name, "\"package\" and a \"types\" mapping are required");
  }
  file.package = file.root["package"].as<std::string>();
  for (const auto& entry : file.root["types"]) {
    auto type = std::make_unique<MessageType>();
    type->name = file.package + "." + entry.first.as<std::string>();
    std::string name = type->name;
    if (!tables.types.emplace(name, std::move(type)).second) {
      return schema_invalid(file.name, "type " + name + " is defined twice");
    }
  }
  return Status::ok();
}

// Pass 2: the fields of every type, then the kinds.
Status define(const File& file, Tables& tables) {
  for (const auto& entry : file.root["types"]) {
    const std::string name = file.package + "." + entry.first.as<std::string>();
    MessageType& type = *tables.types.find(name)->second;
    RETURN_IF_ERROR(
        parse_fields(entry.second, file.package, tables, type, file.name + ": " + name));
  }
  const YAML::Node kinds = file.root["kinds"];
  if (!kinds) return Status::ok();
  if (!kinds.IsMap())
    return schema_invalid(file.name, "\"kinds\" must map apiVersion to kind names");
  for (const auto& entry : kinds) {
    const std::string api_version = entry.first.as<std::string>();
    auto slash = api_version.find('/');
    std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    for (const auto& kind : entry.second.as<std::vector<std::string>>()) {
      auto type = tables.types.find(file.package + "." + kind);
      if (type == tables.types.end()) {
        return schema_invalid(file.name,
                              "kind " + api_version + " " + kind + " has no type " + kind);
      }
      if (!tables.kinds.emplace(internal::kind_key(group, version, kind), type->second.get())
               .second) {
        return schema_invalid(file.name, "kind " + api_version + " " + kind + " is declared twice");
      }
    }
  }
  return Status::ok();
}

Result<SchemaSet::Tables> load(
    const std::vector<std::pair<std::string, std::string_view>>& inputs) {
  Tables tables;
  std::vector<File> files;
  for (const auto& [name, text] : inputs) {
    File f;
    f.name = name;
    try {
      f.root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return schema_invalid(name, e.what());
    }
    RETURN_IF_ERROR(declare(f, tables));
    files.push_back(std::move(f));
  }
  for (const File& f : files) RETURN_IF_ERROR(define(f, tables));
  return tables;
}

}  // namespace

const Field* MessageType::field_by_name(std::string_view json_name) const {
  for (const Field& f : fields) {
    if (f.name == json_name) return &f;
  }
  return nullptr;
}

const Field* MessageType::json_field(std::string_view json_name) const {
  for (const Field& f : fields) {
    if (f.inline_fields && f.type.kind == FieldType::Kind::kMessage && f.type.message) {
      if (const Field* inner = f.type.message->json_field(json_name)) return inner;
    } else if (f.name == json_name) {
      return &f;
    }
  }
  return nullptr;
}

Result<SchemaSet> SchemaSet::from_yaml(const Files& files, const Files& rules) {
  try {
    ASSIGN_OR_RETURN(Tables tables, load(files));
    for (const auto& [name, text] : rules)
      RETURN_IF_ERROR(internal::apply_rules(tables, name, text));
    return SchemaSet(std::make_shared<const Tables>(std::move(tables)));
  } catch (const YAML::Exception& e) {  // a value of the wrong shape (as<int> on "x", ...)
    return error(Code::kInvalid, std::string("schema: ") + e.what());
  }
}

Result<SchemaSet> SchemaSet::builtin() {
  return from_yaml(
      {
          {"meta.yaml", k3c_embedded_api_schema_meta},
          {"core.yaml", k3c_embedded_api_schema_core},
          {"apps.yaml", k3c_embedded_api_schema_apps},
          {"batch.yaml", k3c_embedded_api_schema_batch},
          {"authentication.yaml", k3c_embedded_api_schema_authentication},
          {"authorization.yaml", k3c_embedded_api_schema_authorization},
          {"autoscaling.yaml", k3c_embedded_api_schema_autoscaling},
          {"autoscaling-v2.yaml", k3c_embedded_api_schema_autoscaling_v2},
          {"admissionregistration.yaml", k3c_embedded_api_schema_admissionregistration},
          {"apiextensions.yaml", k3c_embedded_api_schema_apiextensions},
          {"certificates.yaml", k3c_embedded_api_schema_certificates},
          {"coordination.yaml", k3c_embedded_api_schema_coordination},
          {"discovery.yaml", k3c_embedded_api_schema_discovery},
          {"events.yaml", k3c_embedded_api_schema_events},
          {"networking.yaml", k3c_embedded_api_schema_networking},
          {"node.yaml", k3c_embedded_api_schema_node},
          {"policy.yaml", k3c_embedded_api_schema_policy},
          {"rbac.yaml", k3c_embedded_api_schema_rbac},
          {"scheduling.yaml", k3c_embedded_api_schema_scheduling},
          {"storage.yaml", k3c_embedded_api_schema_storage},
      },
      internal::builtin_rules());
}

const MessageType* SchemaSet::type(std::string_view qualified_name) const {
  auto it = t_->types.find(qualified_name);
  return it == t_->types.end() ? nullptr : it->second.get();
}

const MessageType* SchemaSet::kind(const GroupVersionKind& gvk) const {
  auto it = t_->kinds.find(internal::kind_key(gvk.group, gvk.version, gvk.kind));
  return it == t_->kinds.end() ? nullptr : it->second;
}

bool SchemaSet::complete(const GroupVersionKind& gvk) const {
  return t_->complete_kinds.count(internal::kind_key(gvk.group, gvk.version, gvk.kind)) > 0;
}

size_t SchemaSet::type_count() const { return t_->types.size(); }
size_t SchemaSet::kind_count() const { return t_->kinds.size(); }

}  // namespace k3c::api

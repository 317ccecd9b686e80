// The rules overlay (see schema_rules.h). Rules live apart from the field facts so that the
// facts can be regenerated from upstream's definitions while the rules stay hand-written.
#include "api/internal/schema_rules.h"

#include <yaml-cpp/yaml.h>

#include "api/internal/yaml_keys.h"
#include "core/yaml_json.h"

// The embedded rules files (see CMakeLists.txt).
extern const std::string_view k3c_embedded_api_rules_meta;
extern const std::string_view k3c_embedded_api_rules_core;
extern const std::string_view k3c_embedded_api_rules_apps;
extern const std::string_view k3c_embedded_api_rules_batch;
extern const std::string_view k3c_embedded_api_rules_complete;

namespace k3c::api::internal {
namespace {

Status rules_invalid(const std::string& where, const std::string& what) {
  return error(Code::kInvalid, "schema rules " + where + ": " + what);
}

const std::set<std::string, std::less<>> kFormats = {"dns1123-label", "dns1123-subdomain",
                                                     "qualified-name", "label-value"};

bool is_number(const FieldType& t) {
  return t.kind == FieldType::Kind::kInt32 || t.kind == FieldType::Kind::kInt64 ||
         t.kind == FieldType::Kind::kDouble;
}

Status apply_field_rules(Field& f, const YAML::Node& node, const std::string& where) {
  RETURN_IF_ERROR(check_yaml_keys(
      node, {"default", "required", "enum", "immutable", "format", "minimum", "maximum"},
      "schema rules ", where));
  if (node["default"]) {
    auto d = yaml_to_json(YAML::Dump(node["default"]));
    if (!d.is_ok()) return rules_invalid(where, "default: " + d.status().message());
    f.default_value = std::move(d).value();
  }
  if (node["required"]) f.required = node["required"].as<bool>();
  if (node["immutable"]) f.immutable = node["immutable"].as<bool>();
  if (node["enum"]) {
    if (f.type.kind != FieldType::Kind::kString) return rules_invalid(where, "enum is for strings");
    f.enum_values = node["enum"].as<std::vector<std::string>>();
  }
  if (node["format"]) {
    f.format = node["format"].as<std::string>();
    if (!kFormats.count(f.format))
      return rules_invalid(where, "unknown format \"" + f.format + "\"");
    if (f.type.kind != FieldType::Kind::kString)
      return rules_invalid(where, "format is for strings");
  }
  for (const char* bound : {"minimum", "maximum"}) {
    if (!node[bound]) continue;
    if (!is_number(f.type)) return rules_invalid(where, std::string(bound) + " is for numbers");
    (std::string_view(bound) == "minimum" ? f.minimum : f.maximum) = node[bound].as<int64_t>();
  }
  return Status::ok();
}

Status apply_complete(SchemaSet::Tables& tables, const YAML::Node& node, const std::string& file) {
  if (!node.IsMap()) return rules_invalid(file, "\"complete\" must map apiVersion to kind names");
  for (const auto& entry : node) {
    const std::string api_version = entry.first.as<std::string>();
    auto slash = api_version.find('/');
    std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    for (const auto& kind : entry.second.as<std::vector<std::string>>()) {
      std::string key = kind_key(group, version, kind);
      if (!tables.kinds.count(key)) {
        return rules_invalid(file, "complete: no kind " + api_version + " " + kind);
      }
      tables.complete_kinds.insert(key);
    }
  }
  return Status::ok();
}

}  // namespace

SchemaSet::Files builtin_rules() {
  return {{"rules/meta.yaml", k3c_embedded_api_rules_meta},
          {"rules/core.yaml", k3c_embedded_api_rules_core},
          {"rules/apps.yaml", k3c_embedded_api_rules_apps},
          {"rules/batch.yaml", k3c_embedded_api_rules_batch},
          {"rules/complete.yaml", k3c_embedded_api_rules_complete}};
}

std::string kind_key(std::string_view group, std::string_view version, std::string_view kind) {
  return std::string(group) + "/" + std::string(version) + "/" + std::string(kind);
}

Status apply_rules(SchemaSet::Tables& tables, const std::string& file, std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return rules_invalid(file, e.what());
  }
  RETURN_IF_ERROR(check_yaml_keys(root, {"package", "complete", "types"}, "schema rules ", file));
  if (!root["package"]) return rules_invalid(file, "\"package\" is required");
  const std::string package = root["package"].as<std::string>();
  if (root["complete"]) RETURN_IF_ERROR(apply_complete(tables, root["complete"], file));
  const YAML::Node types = root["types"];
  if (!types) return Status::ok();
  if (!types.IsMap()) return rules_invalid(file, "\"types\" must be a mapping");
  for (const auto& entry : types) {
    const std::string name = package + "." + entry.first.as<std::string>();
    const std::string where = file + ": " + name;
    auto type = tables.types.find(name);
    if (type == tables.types.end()) return rules_invalid(where, "no such type");
    if (!entry.second.IsMap()) return rules_invalid(where, "expected a mapping of field names");
    for (const auto& rule : entry.second) {
      const std::string field = rule.first.as<std::string>();
      Field* f = nullptr;
      for (Field& candidate : type->second->fields) {
        if (candidate.name == field) f = &candidate;
      }
      if (!f) return rules_invalid(where + "." + field, "no such field");
      RETURN_IF_ERROR(apply_field_rules(*f, rule.second, where + "." + field));
    }
  }
  return Status::ok();
}

}  // namespace k3c::api::internal

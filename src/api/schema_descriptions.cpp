// Loads the description files (see schema_descriptions.h). The format is the rules overlay's
// (doc/schemas.md): a package and its types, checked against the facts the same way, with
// only words allowed: a type's `description` and its `fields`' texts, or `fieldsFrom`, another
// type of the package whose words serve the fields of the same name.
#include "api/schema_descriptions.h"

#include <yaml-cpp/yaml.h>

#include "api/internal/yaml_keys.h"

// The embedded description files, one per fact file (see CMakeLists.txt).
extern const std::string_view k3c_embedded_api_descriptions_meta;
extern const std::string_view k3c_embedded_api_descriptions_core;
extern const std::string_view k3c_embedded_api_descriptions_apps;
extern const std::string_view k3c_embedded_api_descriptions_batch;
extern const std::string_view k3c_embedded_api_descriptions_authentication;
extern const std::string_view k3c_embedded_api_descriptions_authorization;
extern const std::string_view k3c_embedded_api_descriptions_autoscaling;
extern const std::string_view k3c_embedded_api_descriptions_autoscaling_v2;
extern const std::string_view k3c_embedded_api_descriptions_admissionregistration;
extern const std::string_view k3c_embedded_api_descriptions_apiextensions;
extern const std::string_view k3c_embedded_api_descriptions_certificates;
extern const std::string_view k3c_embedded_api_descriptions_coordination;
extern const std::string_view k3c_embedded_api_descriptions_discovery;
extern const std::string_view k3c_embedded_api_descriptions_events;
extern const std::string_view k3c_embedded_api_descriptions_networking;
extern const std::string_view k3c_embedded_api_descriptions_node;
extern const std::string_view k3c_embedded_api_descriptions_policy;
extern const std::string_view k3c_embedded_api_descriptions_rbac;
extern const std::string_view k3c_embedded_api_descriptions_scheduling;
extern const std::string_view k3c_embedded_api_descriptions_storage;

namespace k3c::api {
namespace {

constexpr std::string_view kPrefix = "schema descriptions ";

Status descriptions_invalid(const std::string& where, const std::string& what) {
  return error(Code::kInvalid, std::string(kPrefix) + where + ": " + what);
}

// The text of `node`, which must be a non-empty string said once.
Result<std::string> words(const YAML::Node& node, const std::string& current,
                          const std::string& where) {
  if (!node.IsScalar() || node.Scalar().empty())
    return descriptions_invalid(where, "expected a description");
  if (!current.empty()) return descriptions_invalid(where, "described twice");
  return node.Scalar();
}

}  // namespace

Result<SchemaDescriptions> SchemaDescriptions::from_yaml(const SchemaSet& schemas,
                                                         const SchemaSet::Files& files) {
  SchemaDescriptions out;
  std::map<std::string, std::pair<std::string, std::string>> borrowers;  // -> source, where
  for (const auto& [file, text] : files) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return descriptions_invalid(file, e.what());
    }
    RETURN_IF_ERROR(internal::check_yaml_keys(root, {"package", "types"}, kPrefix, file));
    if (!root["package"] || !root["package"].IsScalar() || !root["types"] ||
        !root["types"].IsMap()) {
      return descriptions_invalid(file, "\"package\" and a \"types\" mapping are required");
    }
    const std::string package = root["package"].Scalar();
    for (const auto& entry : root["types"]) {
      const std::string name = package + "." + entry.first.Scalar();
      const std::string where = file + ": " + name;
      const MessageType* type = schemas.type(name);
      if (!type) return descriptions_invalid(where, "no such type");
      RETURN_IF_ERROR(internal::check_yaml_keys(
          entry.second, {"description", "fields", "fieldsFrom"}, kPrefix, where));
      Words& w = out.types_[name];
      if (const YAML::Node from = entry.second["fieldsFrom"]) {
        if (!from.IsScalar() || !schemas.type(package + "." + from.Scalar()))
          return descriptions_invalid(where, "fieldsFrom must name a type of package " + package);
        if (!borrowers.emplace(name, std::pair{package + "." + from.Scalar(), where}).second)
          return descriptions_invalid(where, "fieldsFrom given twice");
      }
      if (entry.second["description"]) {
        ASSIGN_OR_RETURN(w.type, words(entry.second["description"], w.type, where));
      }
      const YAML::Node fields = entry.second["fields"];
      if (!fields) continue;
      if (!fields.IsMap())
        return descriptions_invalid(where, "\"fields\" must map field names to words");
      for (const auto& field : fields) {
        const std::string fname = field.first.Scalar();
        if (!type->field_by_name(fname))
          return descriptions_invalid(where + "." + fname, "no such field");
        ASSIGN_OR_RETURN(w.fields[fname],
                         words(field.second, w.fields[fname], where + "." + fname));
      }
    }
  }
  // Borrowed words fill only the fields a type does not describe itself.
  for (const auto& [name, from] : borrowers) {
    const auto& [source, where] = from;
    if (borrowers.count(source))
      return descriptions_invalid(where, "fieldsFrom names a type that borrows too");
    auto it = out.types_.find(source);
    if (it == out.types_.end())
      return descriptions_invalid(where, "fieldsFrom names a type without words");
    const MessageType* type = schemas.type(name);
    Words& w = out.types_[name];
    for (const auto& [field, text] : it->second.fields) {
      if (type->field_by_name(field) && !w.fields.count(field)) w.fields[field] = text;
    }
  }
  return out;
}

Result<SchemaDescriptions> SchemaDescriptions::builtin(const SchemaSet& schemas) {
  return from_yaml(
      schemas,
      {
          {"descriptions/meta.yaml", k3c_embedded_api_descriptions_meta},
          {"descriptions/core.yaml", k3c_embedded_api_descriptions_core},
          {"descriptions/apps.yaml", k3c_embedded_api_descriptions_apps},
          {"descriptions/batch.yaml", k3c_embedded_api_descriptions_batch},
          {"descriptions/authentication.yaml", k3c_embedded_api_descriptions_authentication},
          {"descriptions/authorization.yaml", k3c_embedded_api_descriptions_authorization},
          {"descriptions/autoscaling.yaml", k3c_embedded_api_descriptions_autoscaling},
          {"descriptions/autoscaling-v2.yaml", k3c_embedded_api_descriptions_autoscaling_v2},
          {"descriptions/admissionregistration.yaml",
           k3c_embedded_api_descriptions_admissionregistration},
          {"descriptions/apiextensions.yaml", k3c_embedded_api_descriptions_apiextensions},
          {"descriptions/certificates.yaml", k3c_embedded_api_descriptions_certificates},
          {"descriptions/coordination.yaml", k3c_embedded_api_descriptions_coordination},
          {"descriptions/discovery.yaml", k3c_embedded_api_descriptions_discovery},
          {"descriptions/events.yaml", k3c_embedded_api_descriptions_events},
          {"descriptions/networking.yaml", k3c_embedded_api_descriptions_networking},
          {"descriptions/node.yaml", k3c_embedded_api_descriptions_node},
          {"descriptions/policy.yaml", k3c_embedded_api_descriptions_policy},
          {"descriptions/rbac.yaml", k3c_embedded_api_descriptions_rbac},
          {"descriptions/scheduling.yaml", k3c_embedded_api_descriptions_scheduling},
          {"descriptions/storage.yaml", k3c_embedded_api_descriptions_storage},
      });
}

std::string_view SchemaDescriptions::type(const MessageType& type) const {
  auto it = types_.find(type.name);
  return it == types_.end() ? std::string_view() : std::string_view(it->second.type);
}

std::string_view SchemaDescriptions::field(const MessageType& type, std::string_view field) const {
  auto it = types_.find(type.name);
  if (it == types_.end()) return {};
  auto f = it->second.fields.find(field);
  return f == it->second.fields.end() ? std::string_view() : std::string_view(f->second);
}

}  // namespace k3c::api

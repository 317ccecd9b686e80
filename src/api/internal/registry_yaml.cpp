// Parser for the resources.yaml format: groups -> versions -> resources -> subresources,
// with the defaults listed at the top of src/api/resources.yaml. Unknown keys are errors so
// that a misspelt field cannot silently fall back to a default.
#include "api/internal/registry_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>
#include <utility>

#include "api/internal/yaml_keys.h"

namespace k3c::api::internal {
namespace {

const std::set<std::string, std::less<>> kDefaultVerbs = {
    "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
const std::set<std::string, std::less<>> kDefaultSubresourceVerbs = {"get", "patch", "update"};

Status registry_yaml_invalid(const std::string& where, const std::string& what) {
  return error(Code::kInvalid, "resources.yaml: " + where + ": " + what);
}

Status check_registry_keys(const YAML::Node& node, std::initializer_list<std::string_view> allowed,
                           const std::string& where) {
  return check_yaml_keys(node, allowed, "resources.yaml: ", where);
}

Result<std::string> required_string(const YAML::Node& node, const char* key,
                                    const std::string& where) {
  const YAML::Node value = node[key];
  if (!value || !value.IsScalar())
    return registry_yaml_invalid(where, std::string("missing \"") + key + "\"");
  return value.as<std::string>();
}

std::string optional_string(const YAML::Node& node, const char* key, std::string fallback) {
  const YAML::Node value = node[key];
  return value ? value.as<std::string>() : std::move(fallback);
}

std::vector<std::string> string_list(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  return value ? value.as<std::vector<std::string>>() : std::vector<std::string>{};
}

std::set<std::string, std::less<>> verb_set(const YAML::Node& node,
                                            const std::set<std::string, std::less<>>& fallback) {
  const YAML::Node value = node["verbs"];
  if (!value) return fallback;
  const auto list = value.as<std::vector<std::string>>();
  return {list.begin(), list.end()};
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

Result<Subresource> parse_subresource(const YAML::Node& node, const Resource& parent,
                                      const std::string& where) {
  RETURN_IF_ERROR(check_registry_keys(node, {"name", "group", "version", "kind", "verbs"}, where));
  Subresource sub;
  ASSIGN_OR_RETURN(sub.name, required_string(node, "name", where));
  // A kind from another group-version names both; a kind alone is in the parent's.
  if (static_cast<bool>(node["group"]) != static_cast<bool>(node["version"])) {
    return registry_yaml_invalid(where + "/" + sub.name, "\"group\" and \"version\" go together");
  }
  sub.response_kind.group = optional_string(node, "group", parent.group);
  sub.response_kind.version = optional_string(node, "version", parent.version);
  sub.response_kind.kind = optional_string(node, "kind", parent.kind);
  sub.verbs = verb_set(node, kDefaultSubresourceVerbs);
  return sub;
}

Result<Resource> parse_resource(const YAML::Node& node, const std::string& group,
                                const std::string& version, const std::string& where_gv) {
  std::string where = where_gv + " " + optional_string(node, "plural", "?");
  RETURN_IF_ERROR(check_registry_keys(
      node,
      {"plural", "singular", "kind", "namespaced", "verbs", "shortNames", "categories", "storage",
       "subresources", "returnsDeletedObject", "watchCache"},
      where));
  Resource r;
  r.group = group;
  r.version = version;
  ASSIGN_OR_RETURN(r.plural, required_string(node, "plural", where));
  ASSIGN_OR_RETURN(r.kind, required_string(node, "kind", where));
  r.singular = optional_string(node, "singular", lowered(r.kind));
  if (!node["namespaced"]) return registry_yaml_invalid(where, "missing \"namespaced\"");
  r.namespaced = node["namespaced"].as<bool>();
  r.verbs = verb_set(node, kDefaultVerbs);
  r.short_names = string_list(node, "shortNames");
  r.categories = string_list(node, "categories");
  const std::string storage = optional_string(node, "storage", "/registry/" + r.plural);
  r.storage_prefix = storage == "none" ? "" : storage;
  if (node["returnsDeletedObject"])
    r.returns_deleted_object = node["returnsDeletedObject"].as<bool>();
  if (node["watchCache"]) r.watch_cached = node["watchCache"].as<bool>();
  if (const YAML::Node subs = node["subresources"]) {
    if (!subs.IsSequence()) return registry_yaml_invalid(where, "\"subresources\" must be a list");
    for (const auto& sub_node : subs) {
      ASSIGN_OR_RETURN(Subresource sub, parse_subresource(sub_node, r, where));
      r.subresources.push_back(std::move(sub));
    }
  }
  return r;
}

Status parse_group(const YAML::Node& node, RegistryData& out) {
  RETURN_IF_ERROR(check_registry_keys(node, {"group", "versions"}, "group entry"));
  ASSIGN_OR_RETURN(std::string name, required_string(node, "group", "group entry"));
  const std::string where_group = name.empty() ? "core" : name;
  const YAML::Node versions = node["versions"];
  if (!versions || !versions.IsSequence() || versions.size() == 0) {
    return registry_yaml_invalid(where_group, "\"versions\" must be a non-empty list");
  }
  ApiGroup group{name, {}};
  for (const auto& version_node : versions) {
    RETURN_IF_ERROR(check_registry_keys(version_node, {"version", "resources"}, where_group));
    ASSIGN_OR_RETURN(std::string version, required_string(version_node, "version", where_group));
    const std::string where_gv = group_version_string(name, version);
    const YAML::Node resources = version_node["resources"];
    if (!resources || !resources.IsSequence()) {
      return registry_yaml_invalid(where_gv, "\"resources\" must be a list");
    }
    for (const auto& resource_node : resources) {
      ASSIGN_OR_RETURN(Resource r, parse_resource(resource_node, name, version, where_gv));
      out.resources.push_back(std::move(r));
    }
    group.versions.push_back(std::move(version));
  }
  out.groups.push_back(std::move(group));
  return Status::ok();
}

}  // namespace

Result<RegistryData> parse_registry_yaml(std::string_view text) {
  // yaml-cpp reports syntax errors and failed conversions (as<bool>() on "maybe") by
  // throwing; every call into it happens inside this try.
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    RETURN_IF_ERROR(check_registry_keys(root, {"groups"}, "top level"));
    const YAML::Node groups = root["groups"];
    if (!groups || !groups.IsSequence())
      return registry_yaml_invalid("top level", "\"groups\" must be a list");
    RegistryData data;
    for (const auto& group_node : groups) RETURN_IF_ERROR(parse_group(group_node, data));
    return data;
  } catch (const YAML::Exception& e) {
    return error(Code::kInvalid, std::string("resources.yaml: ") + e.what());
  }
}

}  // namespace k3c::api::internal

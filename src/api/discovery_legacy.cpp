// Legacy discovery (meta/v1 APIVersions, APIGroupList, APIGroup, APIResourceList): what
// kubectl falls back to, and what `kubectl auth can-i` still asks for (/apis/<g>/<v>).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/discovery.h"

namespace k3c::api {
namespace {

using nlohmann::json;

json group_version_entry(const std::string& group, const std::string& version) {
  return {{"groupVersion", group_version_string(group, version)}, {"version", version}};
}

json group_fields(const ApiGroup& group) {
  json versions = json::array();
  for (const std::string& v : group.versions)
    versions.push_back(group_version_entry(group.name, v));
  return {{"name", group.name},
          {"versions", std::move(versions)},
          {"preferredVersion", group_version_entry(group.name, group.preferred_version())}};
}

json legacy_resource_entry(const Resource& r) {
  json entry = {{"name", r.plural},
                {"singularName", r.singular},
                {"namespaced", r.namespaced},
                {"kind", r.kind},
                {"verbs", r.verbs}};
  if (!r.short_names.empty()) entry["shortNames"] = r.short_names;
  if (!r.categories.empty()) entry["categories"] = r.categories;
  return entry;
}

// "pods/log": group and version are named only when the kind is from another group-version.
json subresource_entry(const Resource& r, const Subresource& sub) {
  json entry = {{"name", r.plural + "/" + sub.name},
                {"singularName", ""},
                {"namespaced", r.namespaced},
                {"kind", sub.response_kind.kind},
                {"verbs", sub.verbs}};
  if (sub.response_kind.group != r.group || sub.response_kind.version != r.version) {
    entry["group"] = sub.response_kind.group;
    entry["version"] = sub.response_kind.version;
  }
  return entry;
}

}  // namespace

json legacy_api_versions(const ResourceRegistry& registry, std::string_view server_address) {
  const ApiGroup* core = registry.group("");
  return {{"kind", "APIVersions"},
          {"versions", core != nullptr ? core->versions : std::vector<std::string>{}},
          {"serverAddressByClientCIDRs",
           json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
}

json legacy_group_list(const ResourceRegistry& registry) {
  json groups = json::array();
  for (const ApiGroup& group : registry.groups()) {
    if (!group.name.empty()) groups.push_back(group_fields(group));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

std::optional<json> legacy_group(const ResourceRegistry& registry, std::string_view name) {
  const ApiGroup* group = registry.group(name);
  if (group == nullptr || group->name.empty()) return std::nullopt;
  json doc = group_fields(*group);
  doc["kind"] = "APIGroup";
  doc["apiVersion"] = "v1";
  return doc;
}

std::optional<json> legacy_resource_list(const ResourceRegistry& registry, std::string_view group,
                                         std::string_view version) {
  const auto resources = registry.resources_of(group, version);
  if (resources.empty()) return std::nullopt;
  std::vector<json> entries;
  for (const Resource* r : resources) {
    entries.push_back(legacy_resource_entry(*r));
    for (const Subresource& sub : r->subresources) entries.push_back(subresource_entry(*r, sub));
  }
  // Upstream lists every path sorted by name ("pods", "pods/attach", ..., "podtemplates").
  std::sort(entries.begin(), entries.end(), [](const json& a, const json& b) {
    return a["name"].get_ref<const std::string&>() < b["name"].get_ref<const std::string&>();
  });
  json doc = {{"kind", "APIResourceList"},
              {"groupVersion", group_version_string(group, version)},
              {"resources", std::move(entries)}};
  // The core list has no apiVersion upstream; the named groups' lists say "v1".
  if (!group.empty()) doc["apiVersion"] = "v1";
  return doc;
}

}  // namespace k3c::api

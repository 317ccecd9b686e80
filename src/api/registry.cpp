// ResourceRegistry: construction from data, consistency checks and lookups. Adding and
// removing resources (CRDs) lives in registry_update.cpp; the YAML reader in internal/.
#include "api/registry.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "api/internal/registry_yaml.h"

// Generated from src/api/resources.yaml by k3c_embed (cmake/K3cEmbed.cmake).
extern const std::string_view k3c_embedded_api_resources_yaml;

namespace k3c::api {
namespace {

const std::set<std::string_view> kKnownVerbs = {"create", "delete", "deletecollection", "get",
                                                "list",   "patch",  "update",           "watch"};

std::string lookup_key(std::string_view group, std::string_view version, std::string_view name) {
  std::string key;
  key.reserve(group.size() + version.size() + name.size() + 2);
  key.append(group).append("/").append(version).append("/").append(name);
  return key;
}

std::string lower_case(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Status resource_invalid(const Resource& r, const std::string& what) {
  return error(Code::kInvalid, "resource " + r.group_version() + " " + r.plural + ": " + what);
}

Status check_verbs(const std::set<std::string, std::less<>>& verbs, const Resource& r) {
  if (verbs.empty()) return resource_invalid(r, "no verbs");
  for (const auto& verb : verbs) {
    if (kKnownVerbs.count(verb) == 0) return resource_invalid(r, "unknown verb \"" + verb + "\"");
  }
  return Status::ok();
}

Status check_resource(const Resource& r) {
  if (r.plural.empty() || r.kind.empty() || r.singular.empty() || r.version.empty()) {
    return resource_invalid(r, "plural, singular, kind and version are required");
  }
  if (r.plural.find('/') != std::string::npos) return resource_invalid(r, "plural contains '/'");
  RETURN_IF_ERROR(check_verbs(r.verbs, r));
  for (size_t i = 0; i < r.subresources.size(); ++i) {
    const Subresource& sub = r.subresources[i];
    const GroupVersionKind& kind = sub.response_kind;
    if (sub.name.empty() || kind.kind.empty() || kind.version.empty()) {
      return resource_invalid(r,
                              "subresource \"" + sub.name + "\" needs a name and a response kind");
    }
    if (i > 0 && r.subresources[i - 1].name == sub.name) {
      return resource_invalid(r, "subresource \"" + sub.name + "\" listed twice");
    }
    RETURN_IF_ERROR(check_verbs(sub.verbs, r));
  }
  return Status::ok();
}

// Every group has versions; no group or version is listed twice.
Status check_groups(const std::vector<ApiGroup>& groups) {
  std::set<std::string_view> names;
  for (const ApiGroup& group : groups) {
    if (!names.insert(group.name).second) {
      return error(Code::kInvalid, "group \"" + group.name + "\" listed twice");
    }
    const std::set<std::string_view> versions(group.versions.begin(), group.versions.end());
    if (versions.empty() || versions.size() != group.versions.size()) {
      return error(Code::kInvalid, "group \"" + group.name + "\" needs versions, each listed once");
    }
  }
  return Status::ok();
}

// Where a group-version sits in the group list: (group index, version index), or nullopt.
std::optional<std::pair<size_t, size_t>> position_of(const std::vector<ApiGroup>& groups,
                                                     std::string_view group,
                                                     std::string_view version) {
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].name != group) continue;
    const auto& versions = groups[g].versions;
    const auto it = std::find(versions.begin(), versions.end(), version);
    if (it == versions.end()) return std::nullopt;
    return std::make_pair(g, static_cast<size_t>(it - versions.begin()));
  }
  return std::nullopt;
}

}  // namespace

std::string group_version_string(std::string_view group, std::string_view version) {
  if (group.empty()) return std::string(version);
  std::string gv(group);
  gv.append("/").append(version);
  return gv;
}

std::string custom_resource_storage_prefix(std::string_view group, std::string_view plural) {
  std::string prefix = "/registry/";
  prefix.append(group).append("/").append(plural);
  return prefix;
}

const Subresource* Resource::subresource(std::string_view name) const {
  for (const auto& sub : subresources) {
    if (sub.name == name) return &sub;
  }
  return nullptr;
}

std::string Resource::storage_key(std::string_view ns, std::string_view name) const {
  std::string key = storage_prefix;
  if (namespaced) key.append("/").append(ns);
  key.append("/").append(name);
  return key;
}

Result<ResourceRegistry> ResourceRegistry::builtin() {
  return from_yaml(k3c_embedded_api_resources_yaml);
}

Result<ResourceRegistry> ResourceRegistry::from_yaml(std::string_view yaml) {
  ASSIGN_OR_RETURN(internal::RegistryData data, internal::parse_registry_yaml(yaml));
  return create(std::move(data.groups), std::move(data.resources));
}

Result<ResourceRegistry> ResourceRegistry::create(std::vector<ApiGroup> groups,
                                                  std::vector<Resource> resources) {
  const size_t fixed = groups.size();
  return make(std::move(groups), std::move(resources), fixed);
}

Result<ResourceRegistry> ResourceRegistry::make(std::vector<ApiGroup> groups,
                                                std::vector<Resource> resources,
                                                size_t fixed_groups) {
  ResourceRegistry registry;
  registry.groups_ = std::move(groups);
  registry.resources_ = std::move(resources);
  registry.fixed_groups_ = fixed_groups;
  RETURN_IF_ERROR(registry.index());
  return registry;
}

Status ResourceRegistry::index() {
  RETURN_IF_ERROR(check_groups(groups_));
  // Sort into group order, then version order, then by plural, so that one group-version's
  // resources are contiguous and in discovery order.
  std::vector<std::pair<std::pair<size_t, size_t>, Resource>> placed;
  placed.reserve(resources_.size());
  for (auto& r : resources_) {
    std::sort(r.subresources.begin(), r.subresources.end(),
              [](const Subresource& a, const Subresource& b) { return a.name < b.name; });
    RETURN_IF_ERROR(check_resource(r));
    const auto position = position_of(groups_, r.group, r.version);
    if (!position) return resource_invalid(r, "its group-version is not in the group list");
    placed.emplace_back(*position, std::move(r));
  }
  std::sort(placed.begin(), placed.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.plural < b.second.plural;
  });
  resources_.clear();
  for (auto& entry : placed) resources_.push_back(std::move(entry.second));

  by_plural_.clear();
  by_kind_.clear();
  for (size_t i = 0; i < resources_.size(); ++i) {
    const Resource& r = resources_[i];
    if (!by_plural_.emplace(lookup_key(r.group, r.version, r.plural), i).second) {
      return resource_invalid(r, "listed twice");
    }
    if (!by_kind_.emplace(lookup_key(r.group, r.version, r.kind), i).second) {
      return resource_invalid(r, "kind " + r.kind + " is already served by another resource");
    }
  }
  for (const ApiGroup& group : groups_) {
    for (const std::string& version : group.versions) {
      if (resources_of(group.name, version).empty()) {
        return error(Code::kInvalid, "group-version " + group_version_string(group.name, version) +
                                         " has no resources");
      }
    }
  }
  return Status::ok();
}

const Resource* ResourceRegistry::find(std::string_view group, std::string_view version,
                                       std::string_view plural) const {
  const size_t slash = plural.find('/');
  const std::string_view name = plural.substr(0, slash);
  const auto it = by_plural_.find(lookup_key(group, version, name));
  if (it == by_plural_.end()) return nullptr;
  const Resource* r = &resources_[it->second];
  if (slash != std::string_view::npos && r->subresource(plural.substr(slash + 1)) == nullptr) {
    return nullptr;
  }
  return r;
}

const Resource* ResourceRegistry::find_kind(std::string_view group, std::string_view version,
                                            std::string_view kind) const {
  const auto it = by_kind_.find(lookup_key(group, version, kind));
  return it == by_kind_.end() ? nullptr : &resources_[it->second];
}

const ApiGroup* ResourceRegistry::group(std::string_view name) const {
  for (const auto& g : groups_) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::vector<const Resource*> ResourceRegistry::resources_of(std::string_view group,
                                                            std::string_view version) const {
  std::vector<const Resource*> out;
  for (const auto& r : resources_) {
    if (r.group == group && r.version == version) out.push_back(&r);
  }
  return out;
}

std::vector<const Resource*> ResourceRegistry::in_category(std::string_view category) const {
  std::vector<const Resource*> out;
  for (const auto& g : groups_) {
    for (const Resource* r : resources_of(g.name, g.preferred_version())) {
      const auto& cats = r->categories;
      if (std::find(cats.begin(), cats.end(), category) != cats.end()) out.push_back(r);
    }
  }
  return out;
}

const Resource* ResourceRegistry::resolve(std::string_view name) const {
  // "<resource>[.<version>].<group>": the first label is the resource, the rest a group,
  // optionally preceded by one of that group's versions.
  std::string wanted = lower_case(name);
  std::optional<std::string> group_filter;
  std::optional<std::string> version_filter;
  if (const size_t dot = wanted.find('.'); dot != std::string::npos) {
    std::string rest = wanted.substr(dot + 1);
    wanted.resize(dot);
    const size_t dot2 = rest.find('.');
    if (dot2 != std::string::npos && group(rest.substr(dot2 + 1)) != nullptr &&
        position_of(groups_, rest.substr(dot2 + 1), rest.substr(0, dot2))) {
      version_filter = rest.substr(0, dot2);
      rest = rest.substr(dot2 + 1);
    }
    group_filter = std::move(rest);
  }
  const auto candidates = [&]() {
    std::vector<const Resource*> out;
    for (const auto& g : groups_) {
      if (group_filter && g.name != *group_filter) continue;
      const auto list =
          resources_of(g.name, version_filter ? *version_filter : g.preferred_version());
      out.insert(out.end(), list.begin(), list.end());
    }
    return out;
  }();
  for (const Resource* r : candidates) {
    const auto& shorts = r->short_names;
    if (std::find(shorts.begin(), shorts.end(), wanted) != shorts.end()) return r;
  }
  for (const Resource* r : candidates) {
    if (r->plural == wanted || r->singular == wanted || lower_case(r->kind) == wanted) return r;
  }
  return nullptr;
}

}  // namespace k3c::api

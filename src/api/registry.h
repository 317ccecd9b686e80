// The resource registry: every API resource k3c serves (group, version, kind, plural,
// scope, verbs, short names, categories, subresources, storage key prefix) and the order
// and preferred versions of the API groups. The built-in set is data
// (src/api/resources.yaml, embedded at build time); CRDs are added as new snapshots.
//
// Ownership and threads: a ResourceRegistry is an immutable value. It never changes after
// construction; with()/without() return a new registry. Share one snapshot between threads
// as std::shared_ptr<const ResourceRegistry> and swap the pointer when CRDs change. The
// Resource pointers that lookups return live as long as the registry they came from.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace k3c::api {

struct GroupVersionKind {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;

  bool operator==(const GroupVersionKind&) const = default;
};

// "v1" for the core group, "apps/v1" otherwise: the apiVersion of objects.
std::string group_version_string(std::string_view group, std::string_view version);

struct Subresource {
  std::string name;  // "status", "scale", "log", ...
  GroupVersionKind
      response_kind;  // always fully filled in (deployments/scale: autoscaling/v1 Scale)
  std::set<std::string, std::less<>> verbs;
};

struct Resource {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
  std::string plural;    // the URL segment: "pods"
  std::string singular;  // "pod"
  bool namespaced = false;
  std::set<std::string, std::less<>> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<Subresource> subresources;  // sorted by name
  // The store key prefix ("/registry/pods"); objects live at <prefix>/<namespace>/<name>
  // or <prefix>/<name>. Empty for resources that are never stored (reviews, bindings).
  std::string storage_prefix;
  // A delete that removes the object at once answers with the object, not a Status (upstream's
  // ReturnDeletedObject: pods, services, serviceaccounts, persistentvolumes and claims).
  bool returns_deleted_object = false;
  // Held in the API server's watch cache (false: read from the store, as upstream serves
  // Events straight from etcd: DefaultWatchCacheSizes gives them no cache).
  bool watch_cached = true;

  GroupVersionKind gvk() const { return {group, version, kind}; }
  std::string group_version() const { return group_version_string(group, version); }
  bool has_verb(std::string_view verb) const { return verbs.count(verb) > 0; }
  bool stored() const { return !storage_prefix.empty(); }
  // nullptr when this resource has no such subresource.
  const Subresource* subresource(std::string_view name) const;
  // The store key of one object; `ns` is ignored for cluster-scoped resources.
  std::string storage_key(std::string_view ns, std::string_view name) const;
};

// Upstream's key prefix for custom resources: /registry/<group>/<plural>.
std::string custom_resource_storage_prefix(std::string_view group, std::string_view plural);

// Kubernetes' version priority (used for CRD groups): GA before beta before alpha, higher
// numbers first (v2 > v1 > v1beta2 > v1beta1 > v1alpha1), then other strings by name.
// True when `a` sorts before (has higher priority than) `b`.
bool version_priority_less(std::string_view a, std::string_view b);

struct ApiGroup {
  std::string name;                   // "" for the core group
  std::vector<std::string> versions;  // preferred first
  const std::string& preferred_version() const { return versions.front(); }
};

class ResourceRegistry {
 public:
  // The built-in resources from the embedded resources.yaml.
  static Result<ResourceRegistry> builtin();
  // Parses a document in resources.yaml's format (doc/api-registry.md). kInvalid on a
  // syntax error or inconsistent data (duplicates, unknown verbs, missing fields).
  static Result<ResourceRegistry> from_yaml(std::string_view yaml);
  // Builds a registry from groups (in /apis order, versions preferred first) and resources;
  // every resource's group-version must be listed. kInvalid on inconsistent data.
  static Result<ResourceRegistry> create(std::vector<ApiGroup> groups,
                                         std::vector<Resource> resources);

  // A new registry with `extra` resources added (CRDs). New groups go after the existing
  // ones, ordered by name (upstream gives every CRD group the same lower priority); new
  // versions are placed by version priority. kAlreadyExists when a resource is already
  // served in that group-version.
  Result<ResourceRegistry> with(const std::vector<Resource>& extra) const;
  // A new registry without any version of group/plural; versions and groups left with no
  // resources disappear. kNotFound when there is no such resource.
  Result<ResourceRegistry> without(std::string_view group, std::string_view plural) const;

  // The resource named `plural` in group/version, or nullptr. `plural` may name a
  // subresource ("pods/log"): then the parent is returned if it has that subresource.
  const Resource* find(std::string_view group, std::string_view version,
                       std::string_view plural) const;
  const Resource* find_kind(std::string_view group, std::string_view version,
                            std::string_view kind) const;
  // What kubectl would pick for a name on its command line: a short name, plural, singular
  // or kind (case-insensitive), optionally qualified as "<name>.<group>". Only preferred
  // versions count; groups are tried in order, short names before the other names.
  const Resource* resolve(std::string_view name) const;

  const std::vector<ApiGroup>& groups() const { return groups_; }
  const ApiGroup* group(std::string_view name) const;
  // The resources of one group-version, sorted by plural.
  std::vector<const Resource*> resources_of(std::string_view group, std::string_view version) const;
  // The resources in `category` ("all"), preferred versions only, in group order.
  std::vector<const Resource*> in_category(std::string_view category) const;
  // Every resource, grouped by group-version in group and version order.
  const std::vector<Resource>& resources() const { return resources_; }

 private:
  ResourceRegistry() = default;
  // `fixed_groups` leading groups keep their order; later ones (CRD groups) sort by name.
  static Result<ResourceRegistry> make(std::vector<ApiGroup> groups,
                                       std::vector<Resource> resources, size_t fixed_groups);
  Status index();  // sorts resources_, fills the lookup maps, checks consistency

  std::vector<ApiGroup> groups_;
  size_t fixed_groups_ = 0;
  std::vector<Resource> resources_;
  // "group/version/plural" and "group/version/Kind" -> position in resources_.
  std::unordered_map<std::string, size_t> by_plural_;
  std::unordered_map<std::string, size_t> by_kind_;
};

}  // namespace k3c::api

// Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1, APIGroupDiscoveryList): the one
// document per root that kubectl 1.26+ fetches instead of one request per group-version.
#include <nlohmann/json.hpp>

#include "api/discovery.h"

namespace k3c::api {
namespace {

using nlohmann::json;

// Upstream leaves group and version empty when the kind is in the resource's own
// group-version and names both only for another one (deployments/scale -> autoscaling/v1).
json response_kind(const GroupVersionKind& kind, const Resource& owner) {
  const bool same_gv = kind.group == owner.group && kind.version == owner.version;
  return json{{"group", same_gv ? "" : kind.group},
              {"version", same_gv ? "" : kind.version},
              {"kind", kind.kind}};
}

json aggregated_resource_entry(const Resource& r) {
  json entry = {
      {"resource", r.plural},
      {"responseKind", response_kind(r.gvk(), r)},
      {"scope", r.namespaced ? "Namespaced" : "Cluster"},
      {"singularResource", r.singular},
      {"verbs", r.verbs},
  };
  if (!r.short_names.empty()) entry["shortNames"] = r.short_names;
  if (!r.categories.empty()) entry["categories"] = r.categories;
  if (!r.subresources.empty()) {
    json subs = json::array();
    for (const Subresource& sub : r.subresources) {  // sorted by name
      subs.push_back({{"subresource", sub.name},
                      {"responseKind", response_kind(sub.response_kind, r)},
                      {"verbs", sub.verbs}});
    }
    entry["subresources"] = std::move(subs);
  }
  return entry;
}

json group_entry(const ResourceRegistry& registry, const ApiGroup& group) {
  json versions = json::array();
  for (const std::string& version : group.versions) {  // preferred first
    json resources = json::array();
    for (const Resource* r : registry.resources_of(group.name, version)) {  // sorted
      resources.push_back(aggregated_resource_entry(*r));
    }
    versions.push_back(
        {{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
  }
  // ObjectMeta as Go serializes it: name is omitted when empty (the core group),
  // creationTimestamp is always there.
  json metadata = {{"creationTimestamp", nullptr}};
  if (!group.name.empty()) metadata["name"] = group.name;
  return {{"metadata", std::move(metadata)}, {"versions", std::move(versions)}};
}

}  // namespace

std::string_view content_type_of(AggregatedVersion version) {
  return version == AggregatedVersion::kV2 ? kAggregatedV2ContentType
                                           : kAggregatedV2Beta1ContentType;
}

json aggregated_discovery(const ResourceRegistry& registry, DiscoveryRoot root,
                          AggregatedVersion version) {
  json items = json::array();
  for (const ApiGroup& group : registry.groups()) {
    if ((root == DiscoveryRoot::kApi) == group.name.empty()) {
      items.push_back(group_entry(registry, group));
    }
  }
  return {
      {"kind", "APIGroupDiscoveryList"},
      {"apiVersion", version == AggregatedVersion::kV2 ? "apidiscovery.k8s.io/v2"
                                                       : "apidiscovery.k8s.io/v2beta1"},
      {"metadata", json::object()},
      {"items", std::move(items)},
  };
}

}  // namespace k3c::api

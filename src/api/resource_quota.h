// The ResourceQuota rules, as pure functions (upstream's quota evaluators in
// pkg/quota/v1/evaluator/core and the admission plugin's checkRequest), shared by the
// admission plugin and the resource quota controller:
//   - what an object counts: pods (pods, cpu, memory, requests.*, limits.*, ephemeral
//     storage, hugepages, extended resources; nothing but count/pods once terminal or being
//     deleted), services (services, services.nodeports, services.loadbalancers), PVCs
//     (persistentvolumeclaims, requests.storage, per storage class), and an object count
//     count/<resource>[.<group>] for every resource (with the legacy names configmaps,
//     secrets, replicationcontrollers, resourcequotas);
//   - which quotas apply (their hard names, and for pods their scopes: Terminating,
//     NotTerminating, BestEffort, NotBestEffort, PriorityClass and scopeSelector);
//   - the check of one quota: "failed quota: q: must specify ...", "exceeded quota: q,
//     requested: pods=1, used: pods=2, limited: pods=2", or the new status.used;
//   - the full recalculation of a quota's usage over the objects of its namespace.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/resource_list.h"

namespace k3c::api {

// A resource as quotas name it: group ("" for core) and plural.
using GroupResource = std::pair<std::string, std::string>;

// What `object` of `resource` counts.
ResourceList quota_usage(const GroupResource& resource, const nlohmann::json& object);

// Whether a write is charged: object counts on create only, pods on create (their resources
// cannot change), services and PVCs on create and update.
bool quota_charges(const GroupResource& resource, bool create);

// What a write adds to the usage: the new object's usage, less the old one's on update
// (never negative), zeros removed.
ResourceList quota_delta(const GroupResource& resource, const nlohmann::json& object,
                         const nlohmann::json* old);

// Whether `quota` applies to `object`: it limits something the resource counts, and its
// scopes select the object.
bool quota_applies(const nlohmann::json& quota, const GroupResource& resource,
                   const nlohmann::json& object);

struct QuotaCheck {
  std::string error;     // set when the quota refuses (the reason after "forbidden: ")
  bool charged = false;  // the quota's usage grows
  ResourceList used;     // its new status.used when charged
};
// Checks one applying quota against a write adding `delta`.
QuotaCheck check_quota(const nlohmann::json& quota, const GroupResource& resource,
                       const nlohmann::json& object, const ResourceList& delta);

// The resources whose objects a quota's hard names count.
std::set<GroupResource> quota_sources(const nlohmann::json& quota);
// A quota's usage recalculated over `objects` (of one namespace) listed per resource: a
// value for every hard name, zero when nothing counts.
ResourceList quota_used(
    const nlohmann::json& quota,
    const std::function<std::vector<nlohmann::json>(const GroupResource&)>& objects);

}  // namespace k3c::api

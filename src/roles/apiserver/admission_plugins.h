// The admission plugins that look at cluster state, run on every create and update of the
// main resource (subresources skip them), in upstream's order:
//   mutate (after defaulting, before validation): LimitRanger defaults, Priority,
//     DefaultTolerationSeconds, DefaultStorageClass; a ResourceQuota's own status (hard
//     mirrors spec.hard, used recalculated from the watch cache) when it is created or its
//     spec changes, so `kubectl describe quota` shows real numbers at once;
//   validate (after validation, just before the write): LimitRanger min/max/ratio, the
//   single global default PriorityClass, and ResourceQuota, which charges each quota that
//   applies by compare-and-swap on its status.used (not under dryRun).
// NamespaceLifecycle lives in rest_write.cpp, ServiceAccount in service_account_admission.h.
//
// Usage only grows here; deleting objects frees it when the quota is recalculated. Until a
// quota controller does that, a quota that would refuse a write is first recalculated from
// the watch cache, so usage freed by deletes is found when it matters.
//
// Thread-safety: every method from any thread; the class holds no mutable state.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/registry.h"
#include "api/resource_quota.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/watch_cache.h"
#include "store/store.h"

namespace k3c::apiserver {

// The resource-list and quota rules live in api/ (the resource quota controller uses them too).
using api::add_into;
using api::check_quota;
using api::GroupResource;
using api::max_into;
using api::pod_resources;
using api::pretty;
using api::quota_applies;
using api::quota_charges;
using api::quota_delta;
using api::quota_sources;
using api::quota_usage;
using api::quota_used;
using api::QuotaCheck;
using api::resource_list;
using api::ResourceList;
using api::to_json;

struct AdmissionAttributes {
  const api::Resource& resource;
  std::string_view namespace_;
  std::string_view subresource;
  bool create = true;
  bool dry_run = false;
};

class AdmissionPlugins {
 public:
  AdmissionPlugins(store::Store& store, WatchCache& cache, const api::ResourceRegistry& registry)
      : store_(store), cache_(cache), registry_(registry) {}

  // `old` is the stored object on update, null on create.
  std::optional<ApiError> mutate(const AdmissionAttributes& a, nlohmann::json& object,
                                 const nlohmann::json* old);
  std::optional<ApiError> validate(const AdmissionAttributes& a, const nlohmann::json& object,
                                   const nlohmann::json* old);

 private:
  struct Stored {
    std::string key;
    nlohmann::json object;
    int64_t revision = 0;
  };
  // The objects of a resource (in one namespace when namespaced) from the watch cache.
  std::vector<Stored> list(const GroupResource& resource, std::string_view ns,
                           int64_t min_revision = -1);
  std::vector<nlohmann::json> objects(const GroupResource& resource, std::string_view ns);
  void set_quota_status(nlohmann::json& quota, std::string_view ns, bool create);
  ResourceList recalculated(const nlohmann::json& quota, std::string_view ns);
  std::optional<ApiError> charge_quotas(const AdmissionAttributes& a, const nlohmann::json& object,
                                        const nlohmann::json* old);
  // Checks one quota and, unless dry run, writes its new usage; retries on conflict.
  std::string charge(const AdmissionAttributes& a, Stored quota, const nlohmann::json& object,
                     const ResourceList& delta);

  store::Store& store_;
  WatchCache& cache_;
  const api::ResourceRegistry& registry_;
};

}  // namespace k3c::apiserver

// ResourceQuota (upstream's resource quota controller): keeps each quota's status.hard equal
// to spec.hard and status.used equal to what its namespace holds, recounted through the API
// with the ResourceQuota rules (api/resource_quota.h). The admission plugin only ever adds to
// status.used as objects are created; this controller gives back what deleted and finished
// objects released ("replenishment"): a pod that is deleted or becomes terminal, a deleted or
// changed Service or PVC requeues the quotas of its namespace, and every quota is recounted
// each resource-quota-sync-period (5 minutes) for everything else (count/<resource>).
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

class ResourceQuotaController final : public Controller {
 public:
  ResourceQuotaController(ControllerContext& ctx, const ControllerManagerSettings& settings);
  Status reconcile(const std::string& key) override;

 private:
  void enqueue_quotas_in(const std::string& ns);
  // The version the API prefers for `group` ("v1" for core), asked once per group.
  Result<std::string> preferred_version(const std::string& group);

  ControllerContext& ctx_;
  const std::chrono::milliseconds sync_period_;
  client::Informer& quotas_;
  std::mutex mu_;
  std::map<std::string, std::string> versions_;  // group -> preferred version
};

}  // namespace k3c::controllers

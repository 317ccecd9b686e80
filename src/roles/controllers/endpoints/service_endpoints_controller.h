// The shape the endpoints and endpointslice controllers share: keyed by Service, woken by
// changes of the Service and of the pods its selector picks (before or after the change),
// syncing the Service's selected pods into their own kind of object. Services without a
// selector are left alone (their endpoints are the user's).
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class ServiceEndpointsController : public Controller {
 public:
  ServiceEndpointsController(std::string name, ControllerContext& ctx);
  Status reconcile(const std::string& service_key) final;

 protected:
  // The service is gone: clean up what was made for it.
  virtual Status service_gone(const std::string& ns, const std::string& name) = 0;
  virtual Status sync(const json& service, const std::vector<json>& pods) = 0;

  ControllerContext& ctx_;
  client::Informer& services_;
  client::Informer& pods_;

 private:
  void pod_changed(const json* old_pod, const json* new_pod);
};

// Labels the Service's endpoints objects carry: the Service's own, plus
// service.kubernetes.io/headless for a headless Service.
json endpoint_labels(const json& service);

}  // namespace k3c::controllers

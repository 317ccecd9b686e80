// discovery.k8s.io/v1 EndpointSlices for every Service with a selector (upstream's
// endpointslice-controller): at most 100 endpoints per slice, one series per port list,
// ready/serving/terminating conditions, owned by the Service (the garbage collector removes
// them with it), a placeholder slice without endpoints when no pod is selected. Slices are
// matched to the desired contents in name order: changed ones updated, missing ones created
// (generateName <service>-), surplus ones deleted; expectations keep a lagging cache from
// creating twice.
#pragma once

#include "roles/controllers/common/expectations.h"
#include "roles/controllers/endpoints/service_endpoints_controller.h"

namespace k3c::controllers {

class EndpointSliceController final : public ServiceEndpointsController {
 public:
  explicit EndpointSliceController(ControllerContext& ctx);

  static constexpr const char* kServiceNameLabel = "kubernetes.io/service-name";
  static constexpr const char* kManagedByLabel = "endpointslice.kubernetes.io/managed-by";
  static constexpr const char* kManagedBy = "endpointslice-controller.k8s.io";

 private:
  Status service_gone(const std::string&, const std::string&) override { return Status::ok(); }
  Status sync(const json& service, const std::vector<json>& pods) override;
  // "<ns>/<service>" for a slice this controller manages, "" otherwise.
  static std::string service_key_of(const json& slice);

  client::Informer& slices_;
  Expectations expectations_;
};

}  // namespace k3c::controllers

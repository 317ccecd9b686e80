// discovery.k8s.io/v1 EndpointSlices for every Service with a selector (upstream's
// endpointslice-controller): at most 100 endpoints per slice, one series per port list,
// ready/serving/terminating conditions, each endpoint's zone from its node's
// topology.kubernetes.io/zone label, owned by the Service (the garbage collector removes them
// with it), a placeholder slice without endpoints when no pod is selected. Written by
// slice_writer.h.
#pragma once

#include "roles/controllers/common/expectations.h"
#include "roles/controllers/endpoints/service_endpoints_controller.h"

namespace k3c::controllers {

class EndpointSliceController final : public ServiceEndpointsController {
 public:
  explicit EndpointSliceController(ControllerContext& ctx);

  static constexpr const char* kManagedBy = "endpointslice-controller.k8s.io";

 private:
  Status service_gone(const std::string&, const std::string&) override { return Status::ok(); }
  Status sync(const json& service, const std::vector<json>& pods) override;
  client::Informer& slices_;
  client::Informer& nodes_;
  Expectations expectations_;
};

}  // namespace k3c::controllers

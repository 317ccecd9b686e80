// core/v1 Endpoints for every Service with a selector (upstream's endpoint-controller): the
// selected pods' addresses grouped by ports (endpoint_math.h), written when they change and
// deleted with the Service.
#pragma once

#include "roles/controllers/endpoints/service_endpoints_controller.h"

namespace k3c::controllers {

class EndpointsController final : public ServiceEndpointsController {
 public:
  explicit EndpointsController(ControllerContext& ctx);

 private:
  Status service_gone(const std::string& ns, const std::string& name) override;
  Status sync(const json& service, const std::vector<json>& pods) override;

  client::Informer& endpoints_;
};

}  // namespace k3c::controllers

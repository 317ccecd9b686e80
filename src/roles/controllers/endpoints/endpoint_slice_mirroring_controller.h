// EndpointSlice mirroring (upstream's endpointslicemirroring controller): a Service without
// a selector whose Endpoints the user writes gets EndpointSlices mirroring them
// (endpoint_math.h mirrored_slices), labelled managed-by
// endpointslicemirroring-controller.k8s.io and owned by the Endpoints, so that readers of
// slices (kube-proxy, DNS) see such services too. The slices go when the Service gains a
// selector or goes, when the Endpoints go, or when the Endpoints are labelled
// endpointslice.kubernetes.io/skip-mirror=true.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/common/expectations.h"

namespace k3c::controllers {

class EndpointSliceMirroringController final : public Controller {
 public:
  explicit EndpointSliceMirroringController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

  static constexpr const char* kManagedBy = "endpointslicemirroring-controller.k8s.io";

 private:
  ControllerContext& ctx_;
  client::Informer& services_;
  client::Informer& endpoints_;
  client::Informer& slices_;
  Expectations expectations_;
};

}  // namespace k3c::controllers

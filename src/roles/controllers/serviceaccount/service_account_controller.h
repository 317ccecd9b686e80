// Every active namespace gets a `default` ServiceAccount and the `kube-root-ca.crt`
// ConfigMap holding the cluster CA (upstream's serviceaccounts and root-ca-cert-publisher
// controllers). Both come back when deleted; the ConfigMap is rewritten when changed.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class ServiceAccountController final : public Controller {
 public:
  explicit ServiceAccountController(ControllerContext& ctx);
  Status reconcile(const std::string& ns) override;

 private:
  ControllerContext& ctx_;
  client::Informer& namespaces_;
  client::Informer& accounts_;
  client::Informer& configmaps_;
};

}  // namespace k3c::controllers

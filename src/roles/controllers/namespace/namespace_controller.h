// Namespace deletion (upstream's namespace controller): once a namespace is Terminating,
// every namespaced resource the API serves (found by discovery, so custom resources too) is
// deleted in it; conditions on the namespace say what remains; when nothing is left the
// `kubernetes` finalizer is removed through /finalize and the namespace is deleted.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class NamespaceController final : public Controller {
 public:
  explicit NamespaceController(ControllerContext& ctx);
  Status reconcile(const std::string& name) override;

 private:
  // Namespaced resources that can be listed and deleted, from discovery.
  Result<std::vector<client::ResourceId>> deletable_resources();

  ControllerContext& ctx_;
  client::Informer& namespaces_;
};

}  // namespace k3c::controllers

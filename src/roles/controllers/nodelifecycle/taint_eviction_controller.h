// Taint-based eviction (upstream's taint-eviction-controller): a pod bound to a node with a
// NoExecute taint it does not tolerate is deleted; one it tolerates for tolerationSeconds is
// deleted when that time has passed since the taint was added (timeAdded), unless the taint
// is gone by then. Before the delete the pod gets the DisruptionTarget condition
// (DeletionByTaintManager), as upstream.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class TaintEvictionController final : public Controller {
 public:
  explicit TaintEvictionController(ControllerContext& ctx);
  Status reconcile(const std::string& pod_key) override;

 private:
  ControllerContext& ctx_;
  client::Informer& pods_;
  client::Informer& nodes_;
};

}  // namespace k3c::controllers

// Deployments: one ReplicaSet per pod template (named <deployment>-<pod-template-hash>),
// rolled out with RollingUpdate (maxSurge/maxUnavailable respected at every step) or
// Recreate, revisions in deployment.kubernetes.io/revision (so `kubectl rollout history`
// and `rollout undo` work), old ReplicaSets kept up to revisionHistoryLimit, pause/resume,
// the progress deadline, and status counters and conditions exactly as `kubectl rollout
// status` and `kubectl get deploy` read them.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class DeploymentController final : public Controller {
 public:
  explicit DeploymentController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

 private:
  struct Rollout;  // the state of one reconcile (deployment_controller.cpp)
  Status find_or_create_new(Rollout& r);
  Status rolling_update(Rollout& r);
  Status recreate(Rollout& r);
  Status scale(Rollout& r, const json& rs, int64_t replicas);
  Status cleanup(Rollout& r);
  Status set_revision(Rollout& r);
  Status sync_status(Rollout& r);
  void enqueue_owner_of(const json& rs);

  ControllerContext& ctx_;
  client::Informer& deployments_;
  client::Informer& replicasets_;
  client::Informer& pods_;
};

}  // namespace k3c::controllers

// Disruption (upstream's disruption controller): keeps each PodDisruptionBudget's status
// current, which is what the eviction API (pods/eviction) decides by. For a budget it
// counts the pods its selector picks in its namespace (policy/v1: an empty selector picks
// every pod, a missing one none), how many it expects and how many must stay healthy
// (budget_math.h: controllers' scales come from ReplicaSets, through them Deployments,
// ReplicationControllers and StatefulSets), how many are Ready, and writes disruptionsAllowed
// with the DisruptionAllowed condition through /status. Evictions recorded in disruptedPods
// stay counted as gone until the pod is deleted or 2 minutes pass.
//
// Not done: controllers other than those four (upstream finds any by its scale
// subresource): their pods' budgets report SyncFailed "found no controllers for pod";
// upstream's stale DisruptionTarget cleanup.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/disruption/budget_math.h"

namespace k3c::controllers {

class DisruptionController final : public Controller {
 public:
  explicit DisruptionController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

 private:
  void enqueue_budgets_of(const json& pod);
  std::vector<client::ObjectPtr> selected_pods(const json& pdb) const;
  std::optional<ControllerScale> scale_of(const json& controller_ref, const std::string& ns) const;

  ControllerContext& ctx_;
  client::Informer& budgets_;
  client::Informer& pods_;
  client::Informer& replica_sets_;
  client::Informer& deployments_;
  client::Informer& replication_controllers_;
  client::Informer& stateful_sets_;
};

}  // namespace k3c::controllers

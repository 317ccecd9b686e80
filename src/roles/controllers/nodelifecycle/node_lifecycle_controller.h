// Node lifecycle (upstream's node-lifecycle-controller): watches each node's heartbeats (the
// Ready condition's lastHeartbeatTime and the kube-node-lease Lease's renewTime). A node not
// heard from within node-monitor-grace-period (node-startup-grace-period for a node that never
// posted Ready) gets its conditions set Unknown; its pods are marked not Ready. Condition
// taints follow the conditions (unreachable/not-ready NoExecute and NoSchedule, pressure,
// network-unavailable, unschedulable); the taint-eviction controller acts on the NoExecute
// ones.
//
// Silence is measured on this controller's clock from the moment a heartbeat value last
// changed (as upstream's probeTimestamp), so clocks of nodes do not matter and a restart of
// the controller gives every node a full grace period.
#pragma once

#include <map>
#include <mutex>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

class NodeLifecycleController final : public Controller {
 public:
  NodeLifecycleController(ControllerContext& ctx, const ControllerManagerSettings& settings);
  Status reconcile(const std::string& node) override;

 private:
  struct Health {
    std::string heartbeat;  // Ready's lastHeartbeatTime as last seen
    std::string renew;      // the Lease's renewTime as last seen
    Clock::TimePoint probed{};
    std::string ready;  // Ready's status as last seen, for transitions
  };
  Status mark_pods_not_ready(const std::string& node);

  ControllerContext& ctx_;
  const std::chrono::milliseconds period_, grace_, startup_grace_;
  client::Informer& nodes_;
  client::Informer& leases_;
  client::Informer& pods_;
  std::mutex mu_;
  std::map<std::string, Health> health_;
};

}  // namespace k3c::controllers

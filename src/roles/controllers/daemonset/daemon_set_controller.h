// DaemonSets (apps/v1), as upstream: one pod per node that should run it (daemon_placement.h),
// created pinned to its node for the scheduler to bind, removed from nodes that no longer
// qualify or no longer exist; ControllerRevisions per template (pods carry the revision's
// hash in controller-revision-hash); RollingUpdate with maxUnavailable/maxSurge
// (daemon_rolling.h) or OnDelete; status counters as `kubectl rollout status` reads them.
#pragma once

#include <map>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/common/expectations.h"

namespace k3c::controllers {

class DaemonSetController final : public Controller {
 public:
  explicit DaemonSetController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

 private:
  struct Sync;  // the state of one reconcile
  // Returns true when it asked for changes (the rolling update then waits a round).
  Result<bool> manage(Sync& s);
  Status rolling_update(Sync& s);
  Status sync_nodes(Sync& s, const std::vector<std::string>& delete_pods,
                    const std::vector<std::string>& create_on_nodes);
  Status update_status(Sync& s);
  void pod_added(const client::ObjectPtr& pod);
  void pod_updated(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void pod_deleted(const client::ObjectPtr& pod);
  void enqueue_owner_of(const json& pod);
  void enqueue_all();

  ControllerContext& ctx_;
  client::Informer& sets_;
  client::Informer& pods_;
  client::Informer& nodes_;
  client::Informer& revisions_;
  Expectations expectations_;
};

}  // namespace k3c::controllers

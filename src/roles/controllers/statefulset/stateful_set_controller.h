// StatefulSets (apps/v1), as upstream: pods with stable names and hostnames created in
// ordinal order (OrderedReady waits for each to be Running and Ready before the next, and
// removes them highest first; Parallel does not wait), a PVC per volumeClaimTemplate created
// before its pod, ControllerRevisions per template (status.currentRevision/updateRevision),
// RollingUpdate from the highest ordinal down to the partition with at most maxUnavailable
// pods down, OnDelete, the PVC retention policy, ordinals.start, minReadySeconds, and the
// status counters `kubectl rollout status` reads.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

struct StatefulSetSync;  // the state of one reconcile (stateful_set_sync.h)

class StatefulSetController final : public Controller {
 public:
  explicit StatefulSetController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

 private:
  using Sync = StatefulSetSync;
  Status update_set(Sync& s);
  // Each returns true when an OrderedReady set must stop here for this round.
  Result<bool> process_replica(Sync& s, size_t i);
  Result<bool> process_condemned(Sync& s, size_t i);
  Status rolling_update(Sync& s);
  Status create_pod(Sync& s, const json& pod);
  Status delete_pod(Sync& s, const json& pod);
  Status create_claims(Sync& s, const json& pod);
  bool claims_stale(const Sync& s, const json& pod) const;
  bool claims_follow_policy(const Sync& s, const json& pod) const;
  Status update_claim_owners(Sync& s, const json& pod);
  Status update_pod(Sync& s, const json& pod);
  json compute_status(Sync& s);
  Status write_status(const Sync& s, const json& status);
  void pod_changed(const client::ObjectPtr& pod);
  void enqueue_owner_of(const json& object);

  ControllerContext& ctx_;
  client::Informer& sets_;
  client::Informer& pods_;
  client::Informer& revisions_;
  client::Informer& claims_;
};

}  // namespace k3c::controllers

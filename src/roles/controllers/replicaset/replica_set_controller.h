// ReplicaSets and ReplicationControllers (one controller, two flavours): keep
// spec.replicas pods matching the selector, adopting matching orphans and releasing pods
// that stopped matching (ownerReferences), with expectations so a lagging cache never
// creates or deletes twice; on scale-down the least valuable pods go first (unscheduled,
// pending, not ready, most restarts, newest). Status counts replicas, fully labeled, ready
// and available (ready for minReadySeconds) pods.
#pragma once

#include "core/elastic_pool.h"
#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/common/expectations.h"

namespace k3c::controllers {

struct ReplicaFlavour {
  client::ResourceId resource;
  std::string api_version;
  std::string kind;
  bool map_selector = false;  // ReplicationController: spec.selector is a plain map
};
// Functions, not globals: they copy client::resources' globals, defined in another file.
ReplicaFlavour replica_set_flavour();
ReplicaFlavour replication_controller_flavour();

class ReplicaSetController final : public Controller {
 public:
  ReplicaSetController(ControllerContext& ctx, ReplicaFlavour flavour);
  Status reconcile(const std::string& key) override;

  // The order pods are deleted in on scale-down: the first are the least valuable.
  static void rank_for_deletion(std::vector<client::ObjectPtr>& pods);

 private:
  std::optional<LabelSelector> selector_of(const json& owner) const;
  // The pods this owner controls after adopting orphans and releasing strays, as the
  // informer caches them (read in place: an owner may have thousands).
  using CachedPods = std::vector<client::Informer::Cached>;
  Result<CachedPods> claim_pods(const json& owner);
  Status manage(const std::string& key, const json& owner, const CachedPods& active);
  Status create_pods(const std::string& key, const json& owner, int count);
  Status update_status(const json& owner, const CachedPods& active, const Status& manage_error);
  void pod_changed(const client::ObjectPtr& pod);
  void enqueue_owner_of(const json& pod);

  ControllerContext& ctx_;
  const ReplicaFlavour flavour_;
  const std::string event_source_;  // replicaset-controller, replication-controller
  client::Informer& owners_;
  client::Informer& pods_;
  Expectations expectations_;
  ElasticPool calls_;  // a batch's creates, side by side (parallel_calls.h)
};

}  // namespace k3c::controllers

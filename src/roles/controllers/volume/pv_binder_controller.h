// PersistentVolume binder (upstream's persistentvolume-binder controller, binding and
// release; provisioning is a provisioner's job and none is built yet):
// - an unbound claim gets the volume binder_math.h picks: the volume's claimRef is set (and
//   its phase Bound), then the claim's spec.volumeName with the bind-completed /
//   bound-by-controller annotations, then its status (Bound, the volume's access modes and
//   capacity). Each step is idempotent, so a half-done binding is finished on the next pass;
// - a claim with no match stays Pending with an event (FailedBinding, or ExternalProvisioning
//   when its StorageClass names a provisioner); claims of a WaitForFirstConsumer class wait
//   (event WaitForFirstConsumer) until the scheduler picks a node, which it does not record
//   yet (volume.kubernetes.io/selected-node);
// - a volume whose claim is gone is Released; with reclaim policy Retain it stays so, with
//   Delete or Recycle it is Failed (k3c has no volume plugin to delete or scrub it yet);
// - a bound claim whose volume is gone is Lost (event ClaimLost).
// Unbound claims are looked at again every 15 s (upstream's sync period) and whenever a
// volume appears or changes.
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class PvBinderController final : public Controller {
 public:
  explicit PvBinderController(ControllerContext& ctx);
  // Keys: "claim:<ns>/<name>" or "volume:<name>".
  Status reconcile(const std::string& key) override;

 private:
  Status sync_claim(const std::string& key);
  Status sync_volume(const std::string& name);
  Status bind(json volume, json claim);
  Status set_phase(const json& object, const client::ResourceId& resource, const std::string& phase,
                   const std::string& message = "");
  void enqueue_unbound_claims();

  ControllerContext& ctx_;
  client::Informer& volumes_;
  client::Informer& claims_;
  client::Informer& classes_;
};

}  // namespace k3c::controllers

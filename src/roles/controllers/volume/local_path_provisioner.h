// The built-in local-path provisioner (what k3s ships as rancher.io/local-path, in-process):
// - at start it creates the StorageClass `local-path` (default class, WaitForFirstConsumer,
//   reclaim Delete) when it is missing, as k3s's local-storage manifest does;
// - a claim of a class with provisioner rancher.io/local-path, once the scheduler has picked
//   its node (volume.kubernetes.io/selected-node), gets a PersistentVolume pvc-<claim uid>:
//   hostPath <storage dir>/pvc-<uid>_<namespace>_<name> (DirectoryOrCreate: made when first
//   mounted), node affinity to that node, the claim's size, access modes and volume mode,
//   pre-bound to the claim (the binder completes the binding);
// - a Released volume it provisioned with reclaim policy Delete has its directory removed
//   and goes. The directory is on the volume's node; the server removes it when that node is
//   its own, otherwise it waits for the node's agent to (not built yet) and says so.
// Off with --disable local-storage.
#pragma once

#include <string>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

class LocalPathProvisioner final : public Controller {
 public:
  static constexpr const char* kProvisioner = "rancher.io/local-path";
  static constexpr const char* kClassName = "local-path";

  LocalPathProvisioner(ControllerContext& ctx, const ControllerManagerSettings& settings);
  // Keys: "storageclass", "claim:<ns>/<name>", "volume:<name>".
  Status reconcile(const std::string& key) override;

 private:
  Status ensure_class();
  Status provision(const std::string& claim_key);
  Status reclaim(const std::string& volume_name);
  // The claim's StorageClass when this provisioner serves it, else nullptr.
  client::ObjectPtr our_class(const json& claim) const;

  ControllerContext& ctx_;
  const std::string storage_dir_;
  const std::string local_node_;
  client::Informer& claims_;
  client::Informer& volumes_;
  client::Informer& classes_;
};

}  // namespace k3c::controllers

// Node IPAM (upstream's node ipam controller with its range allocator): a node without
// spec.podCIDR gets the lowest free /node-cidr-mask-size slice of the cluster CIDR as
// spec.podCIDR and spec.podCIDRs; the pod network reads it from there. Slices in use are
// those of the nodes in the cache (kept by the informer's handlers, so that a reconcile does
// not read every node: with thousands registering at once that was quadratic) plus those
// handed out but not yet seen there (one worker, so no slice is given twice); a deleted
// node's slice is free again. When none is left the node gets a CIDRNotAvailable event and
// is retried with backoff.
#pragma once

#include <map>
#include <mutex>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

class NodeIpamController final : public Controller {
 public:
  NodeIpamController(ControllerContext& ctx, const ControllerManagerSettings& settings);
  Status reconcile(const std::string& key) override;

 private:
  ControllerContext& ctx_;
  const Ipv4Cidr cluster_;
  const int mask_;
  client::Informer& nodes_;
  // Handlers and the worker.
  void observe(const json& node, bool deleted);
  std::mutex mu_;
  std::map<std::string, std::vector<uint32_t>> cached_;  // node name -> its slices in the cache
  std::map<std::string, uint32_t> handed_out_;  // node name -> slice, until the cache has it
};

}  // namespace k3c::controllers

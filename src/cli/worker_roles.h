// The worker roles of a node (runtime, then kubelet), built the same way for `k3c server`
// (the kubelet reaches the apiserver in-process) and `k3c agent` (over HTTPS): the caller
// fills in how the kubelet reaches the apiserver and its TLS files; everything else comes
// from the node's config here.
#pragma once

#include <memory>
#include <vector>

#include "cli/config.h"
#include "core/lifecycle.h"
#include "roles/kubelet/kubelet_role.h"
#include "runtime/registry/puller.h"

namespace k3c::cli {

// The kubelet's config from the node's flags (name, IPs, labels, taints, data dir,
// --kubelet-arg); cluster DNS and domain as given. How it reaches the apiserver (handler or
// client) and its TLS are left for the caller.
kubelet::KubeletConfig kubelet_config(const NodeConfig& node, const std::string& cluster_dns,
                                      const std::string& cluster_domain);

// The node's puller from its registries.yaml; an error names the file.
Result<std::shared_ptr<const runtime::registry::Puller>> node_puller(const NodeConfig& node);

// The runtime role and the kubelet role on it, in start order.
std::vector<std::shared_ptr<Role>> worker_roles(
    kubelet::KubeletConfig kubelet, std::shared_ptr<const runtime::registry::Puller> puller);

}  // namespace k3c::cli

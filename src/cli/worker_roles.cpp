// The worker roles of `k3c server` and `k3c agent` (see worker_roles.h).
#include "cli/worker_roles.h"

#include "cli/registry_transport.h"
#include "runtime/runtime_role.h"

namespace k3c::cli {
namespace {

const char* taint_effect(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
  }
  return "NoSchedule";
}

}  // namespace

kubelet::KubeletConfig kubelet_config(const NodeConfig& node, const std::string& cluster_dns,
                                      const std::string& cluster_domain) {
  kubelet::KubeletConfig k;
  k.node_name = node.node_name;
  for (const IpAddress& ip : node.node_ips) k.node_ips.push_back(ip.to_string());
  for (const NodeLabel& label : node.node_labels)
    k.node_labels.emplace_back(label.key, label.value);
  for (const NodeTaint& taint : node.node_taints) {
    k.node_taints.push_back({taint.key, taint.value, taint_effect(taint.effect)});
  }
  k.data_dir = node.data_dir;
  k.cluster_dns = cluster_dns;
  k.cluster_domain = cluster_domain;
  k.settings = node.kubelet;
  return k;
}

Result<std::shared_ptr<const runtime::registry::Puller>> node_puller(const NodeConfig& node) {
  ASSIGN_OR_RETURN(std::shared_ptr<runtime::registry::Puller> puller,
                   make_puller(node.private_registry));
  return std::shared_ptr<const runtime::registry::Puller>(std::move(puller));
}

std::vector<std::shared_ptr<Role>> worker_roles(
    kubelet::KubeletConfig kubelet, std::shared_ptr<const runtime::registry::Puller> puller) {
  runtime::LinuxRuntimeConfig rc;
  rc.data_dir = kubelet.data_dir;
  rc.puller = std::move(puller);
  auto runtime = std::make_shared<runtime::RuntimeRole>(rc);
  kubelet.runtime = [runtime]() -> runtime::RuntimeService* { return runtime->runtime(); };
  kubelet.images = [runtime]() -> runtime::ImageService* { return runtime->runtime(); };
  return {runtime, std::make_shared<kubelet::KubeletRole>(std::move(kubelet))};
}

}  // namespace k3c::cli

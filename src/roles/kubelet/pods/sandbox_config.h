// The runtime's SandboxConfig for a pod: identity labels, hostname, host namespaces, the
// pod's cgroup by QoS class, its log directory, and the /etc/resolv.conf and /etc/hosts the
// containers see (resolv.conf by dnsPolicy as upstream: ClusterFirst searches
// <ns>.svc.<domain> svc.<domain> <domain> with ndots:5 against the cluster DNS; Default
// leaves the host's; None uses only dnsConfig; dnsConfig is merged in).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct DnsSettings {
  std::string cluster_dns = "10.43.0.10";
  std::string cluster_domain = "cluster.local";
};

runtime::SandboxConfig sandbox_config(const nlohmann::json& pod, uint32_t attempt,
                                      const DnsSettings& dns, const std::string& log_root);

// The resolv.conf contents; "" means the host's (dnsPolicy Default, or hostNetwork with
// ClusterFirst, as upstream).
std::string pod_resolv_conf(const nlohmann::json& pod, const DnsSettings& dns);

}  // namespace k3c::kubelet

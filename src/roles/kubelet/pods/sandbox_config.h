// The runtime's SandboxConfig for a pod: identity labels, hostname, host namespaces, the
// pod's cgroup by QoS class with its pod-level limits (api/pod_qos.h), its log directory, and
// the /etc/resolv.conf and /etc/hosts the containers see (sandbox/pod_files.h: by dnsPolicy
// and dnsConfig as upstream; a hostNetwork pod gets the node's hosts file).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "roles/kubelet/sandbox/pod_files.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

// What the pods' resolv.conf and hosts files are made from.
struct DnsSettings {
  ClusterDns cluster{{"10.43.0.10"}, "cluster.local"};
  ResolvConf host_resolv;  // the node's /etc/resolv.conf (dnsPolicy Default, hostNetwork)
  std::string host_hosts;  // the node's /etc/hosts (hostNetwork pods)
};

// Where the kubelet's cgroups go (--kubelet-arg cgroup-root and pod-max-pids).
struct PodCgroupSettings {
  std::string root = "/";  // the pods' hierarchy (kubepods/...) goes under it; "/" = the top
  int64_t pids_limit = 0;  // every pod cgroup's pids.max; <= 0: none (upstream's -1)
};

runtime::SandboxConfig sandbox_config(const nlohmann::json& pod, uint32_t attempt,
                                      const DnsSettings& dns, const std::string& log_root,
                                      const PodCgroupSettings& cgroups = {});

// `relative` ("kubepods/...") below the cgroup root as the runtime names cgroups: relative
// to the cgroup mounts, no leading or trailing slash.
std::string cgroup_under(const std::string& cgroup_root, const std::string& relative);

}  // namespace k3c::kubelet

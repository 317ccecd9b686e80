// The files the kubelet writes for a pod's sandbox, as upstream's kubelet writes them:
// /etc/resolv.conf from dnsPolicy and dnsConfig, and the Kubernetes-managed /etc/hosts.
// Pure: the host's own files and the cluster settings are passed in.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace k3c::kubelet {

struct ClusterDns {
  std::vector<std::string> servers;  // the kubelet's clusterDNS (k3c: --cluster-dns)
  std::string domain = "cluster.local";
};

struct ResolvConf {
  std::vector<std::string> nameservers;
  std::vector<std::string> searches;
  std::vector<std::string> options;  // "ndots:5", "edns0"

  std::string render() const;
};

// Parses resolv.conf text (nameserver, search/domain, options; comments skipped).
ResolvConf parse_resolv_conf(std::string_view text);

// What the pod's resolv.conf says. `host` is the node's resolv.conf (for dnsPolicy Default,
// and for ClusterFirst on hostNetwork pods). When ClusterFirst has no cluster DNS to use,
// `warning` says so (upstream's MissingClusterDNS event) and the host's is used.
ResolvConf pod_resolv_conf(const nlohmann::json& pod, const ClusterDns& cluster,
                           const ResolvConf& host, std::string* warning = nullptr);

// The Kubernetes-managed /etc/hosts of a pod that does not use the host network: the
// standard localhost entries, the pod's own IPs with its hostname (and FQDN when it has a
// subdomain), then spec.hostAliases.
std::string pod_hosts_file(const nlohmann::json& pod, const std::vector<std::string>& pod_ips,
                           const std::string& cluster_domain);

// A hostNetwork pod's /etc/hosts: the node's own file plus spec.hostAliases.
std::string host_network_hosts_file(const nlohmann::json& pod, std::string_view node_hosts);

// The pod's hostname: spec.hostname, else the pod name (both truncated to 63 characters as
// upstream, without a trailing '-' or '.').
std::string pod_hostname(const nlohmann::json& pod);

}  // namespace k3c::kubelet

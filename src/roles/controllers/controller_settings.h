// The controller manager's settings users tune, one field per upstream kube-controller-manager
// flag (the comment names it). `--kube-controller-manager-arg KEY=VALUE` sets them
// (cli/component_args.h); the defaults are here and only here.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "client/leader_election_settings.h"

namespace k3c::controllers {

// An IPv4 network: the address (host order) and the prefix length.
struct Ipv4Cidr {
  uint32_t network = 0;
  int prefix = 0;
  bool operator==(const Ipv4Cidr&) const = default;
};

struct ControllerManagerSettings {
  // Worker threads per controller. Upstream's defaults count goroutines (gc 20, namespace 10,
  // deployment/replicaset/statefulset 5, daemonset 2); each of ours is an OS thread, so the
  // defaults are smaller.
  int concurrent_replicaset_syncs = 4;          // concurrent-replicaset-syncs
  int concurrent_rc_syncs = 2;                  // concurrent-rc-syncs
  int concurrent_deployment_syncs = 4;          // concurrent-deployment-syncs
  int concurrent_statefulset_syncs = 2;         // concurrent-statefulset-syncs
  int concurrent_daemonset_syncs = 2;           // concurrent-daemonset-syncs
  int concurrent_gc_syncs = 4;                  // concurrent-gc-syncs
  int concurrent_namespace_syncs = 2;           // concurrent-namespace-syncs
  int concurrent_endpoint_syncs = 2;            // concurrent-endpoint-syncs
  int concurrent_service_endpoint_syncs = 2;    // concurrent-service-endpoint-syncs (slices)
  // mirroring-concurrent-service-endpoint-syncs (5): slices mirroring selector-less Endpoints
  int mirroring_concurrent_service_endpoint_syncs = 1;
  int concurrent_job_syncs = 2;                 // concurrent-job-syncs (upstream 5)
  int concurrent_cron_job_syncs = 1;            // concurrent-cron-job-syncs (upstream 5)
  int concurrent_ttl_after_finished_syncs = 1;  // concurrent-ttl-after-finished-syncs (5)
  int concurrent_serviceaccount_syncs = 2;      // no upstream flag (upstream runs one worker)
  int concurrent_resource_quota_syncs = 1;      // concurrent-resource-quota-syncs (5)
  // concurrent-horizontal-pod-autoscaler-syncs (5)
  int concurrent_horizontal_pod_autoscaler_syncs = 1;

  // resource-quota-sync-period: how often every quota is recounted in full.
  std::chrono::milliseconds resource_quota_sync_period{300'000};
  // horizontal-pod-autoscaler-sync-period: how often each HPA looks at its target.
  std::chrono::milliseconds horizontal_pod_autoscaler_sync_period{15'000};

  // terminated-pod-gc-threshold: terminated pods kept before the pod GC deletes the oldest
  // (0 turns that part off).
  int terminated_pod_gc_threshold = 12'500;

  // Node lifecycle: how often nodes are checked (node-monitor-period), how long a running
  // node may go without a heartbeat before it is Unknown (node-monitor-grace-period, 50 s
  // since 1.32), and the same for a node that never reported (node-startup-grace-period).
  std::chrono::milliseconds node_monitor_period{5'000};
  std::chrono::milliseconds node_monitor_grace_period{50'000};
  std::chrono::milliseconds node_startup_grace_period{60'000};

  // Node IPAM: each node gets spec.podCIDR(s), a /node_cidr_mask_size slice of the cluster
  // CIDR (k3c's --cluster-cidr), while allocate_node_cidrs is on (k3s runs it on).
  bool allocate_node_cidrs = true;  // allocate-node-cidrs
  int node_cidr_mask_size = 24;     // node-cidr-mask-size, node-cidr-mask-size-ipv4
  Ipv4Cidr cluster_cidr{0x0a2a0000, 16};  // --cluster-cidr (10.42.0.0/16)

  // k3c's own (no upstream flag): the built-in local-path provisioner, off with --disable
  // local-storage; where it keeps volumes (<data-dir>/storage) and this server's node name
  // (volumes there are removed here).
  bool local_storage = true;
  std::string local_storage_dir;
  std::string local_node_name;

  // CSR signing: the directory with the cluster CAs (client-ca.*, server-ca.*) approved
  // requests are signed with ("" turns the signer off; the server gives its
  // <data-dir>/server/tls, as k3s points the cluster-signing-*-file flags there), and the
  // longest lifetime of what it signs (cluster-signing-duration, 8760h).
  std::string cluster_signing_dir;
  std::chrono::milliseconds cluster_signing_duration{std::chrono::hours(8760)};

  client::LeaderElectionSettings leader_election;  // leader-elect, leader-elect-*
};

}  // namespace k3c::controllers

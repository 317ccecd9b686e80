// The controller manager's settings users tune, one field per upstream kube-controller-manager
// flag (the comment names it). `--kube-controller-manager-arg KEY=VALUE` sets them
// (cli/component_args.h); the defaults are here and only here.
#pragma once

#include <chrono>

#include "client/leader_election_settings.h"

namespace k3c::controllers {

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
  int concurrent_job_syncs = 2;                 // concurrent-job-syncs (upstream 5)
  int concurrent_cron_job_syncs = 1;            // concurrent-cron-job-syncs (upstream 5)
  int concurrent_ttl_after_finished_syncs = 1;  // concurrent-ttl-after-finished-syncs (5)
  int concurrent_serviceaccount_syncs = 2;      // no upstream flag (upstream runs one worker)

  // terminated-pod-gc-threshold: terminated pods kept before the pod GC deletes the oldest
  // (0 turns that part off).
  int terminated_pod_gc_threshold = 12'500;

  // Node lifecycle: how often nodes are checked (node-monitor-period), how long a running
  // node may go without a heartbeat before it is Unknown (node-monitor-grace-period, 50 s
  // since 1.32), and the same for a node that never reported (node-startup-grace-period).
  std::chrono::milliseconds node_monitor_period{5'000};
  std::chrono::milliseconds node_monitor_grace_period{50'000};
  std::chrono::milliseconds node_startup_grace_period{60'000};

  client::LeaderElectionSettings leader_election;  // leader-elect, leader-elect-*
};

}  // namespace k3c::controllers

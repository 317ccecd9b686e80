// A synthetic cluster for k3c_scheduler_bench: nodes in three zones with a realistic mix of
// taints and images, existing pods of 50 workloads, and pending pods with node affinity,
// topology spread, pod anti-affinity and tolerations in proportions a busy cluster shows.
#pragma once

#include <cstddef>
#include <vector>

#include "roles/scheduler/scheduler.h"

namespace k3c::bench {

struct ClusterShape {
  size_t nodes = 1000;
  size_t existing_pods = 10000;
  size_t pending_pods = 2000;
};

struct Cluster {
  scheduler::Snapshot snapshot;
  std::vector<scheduler::PodPtr> pending;  // parsed once, as the scheduler's cache would
};

Cluster make_cluster(const ClusterShape& shape);

}  // namespace k3c::bench

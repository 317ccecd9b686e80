// The scheduler role's config: what the server wires in (handler, identity), the settings
// users tune with `--kube-scheduler-arg` (scheduler_settings.h: upstream's flags), and the
// KubeSchedulerConfiguration file keys (each field names its key; there is no config file
// yet, so these keep upstream's defaults).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "client/cache_transforms.h"
#include "http/http.h"
#include "roles/scheduler/scheduler_settings.h"

namespace k3c::client {
class SharedObjects;
}

namespace k3c::scheduler {

struct SchedulerConfig {
  // The apiserver's handler chain, available once the apiserver role is up.
  std::function<http::Response(http::Request&)> handler;
  std::string identity;  // leader election: <host>_<uuid>
  SchedulerSettings settings;
  // The parsed objects the process's informers share (null: the scheduler's own).
  std::shared_ptr<client::SharedObjects> shared_objects;
  // Applied to the pods the scheduler caches (none: whole); the server gives the controllers'
  // (client::control_plane_pods), so that both share one tree per pod.
  client::CacheTransform pod_transform;

  // profiles[0].schedulerName: pods naming another scheduler are left alone.
  std::string scheduler_name = "default-scheduler";
  // percentageOfNodesToScore (0: upstream's adaptive default).
  int32_t percentage_of_nodes_to_score = 0;
  // podInitialBackoffSeconds / podMaxBackoffSeconds: the wait before a pod that failed is
  // tried again, doubling per attempt up to the maximum.
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  // DefaultPreemption's args: minCandidateNodesPercentage / minCandidateNodesAbsolute.
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;
};

}  // namespace k3c::scheduler

// The scheduler role's settings, typed. Each field names the upstream KubeSchedulerConfiguration
// key (or kube-scheduler flag) it stands for, so that `--kube-scheduler-arg KEY=VALUE` can map
// onto it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "http/http.h"

namespace k3c::scheduler {

struct SchedulerConfig {
  // The apiserver's handler chain, available once the apiserver role is up.
  std::function<http::Response(http::Request&)> handler;
  std::string identity;  // leader election: <host>_<uuid>

  // profiles[0].schedulerName: pods naming another scheduler are left alone.
  std::string scheduler_name = "default-scheduler";
  // percentageOfNodesToScore (0: upstream's adaptive default).
  int32_t percentage_of_nodes_to_score = 0;
  // podInitialBackoffSeconds / podMaxBackoffSeconds: the wait before a pod that failed is
  // tried again, doubling per attempt up to the maximum.
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  // --pod-max-in-unschedulable-pods-duration: an unschedulable pod is tried again at least
  // this often even when no event suggests it might fit now.
  int64_t pod_max_in_unschedulable_seconds = 300;
  // leaderElection.leaderElect: off runs the scheduler without taking the
  // kube-system/kube-scheduler Lease (only safe with one server).
  bool leader_elect = true;
  // DefaultPreemption's args: minCandidateNodesPercentage / minCandidateNodesAbsolute.
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;
};

}  // namespace k3c::scheduler

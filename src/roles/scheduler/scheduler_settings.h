// The scheduler's settings users tune, one field per upstream kube-scheduler flag (the comment
// names it). `--kube-scheduler-arg KEY=VALUE` sets them (cli/component_args.h); the defaults
// are here and only here.
#pragma once

#include <chrono>

#include "client/leader_election_settings.h"

namespace k3c::scheduler {

struct SchedulerSettings {
  // pod-max-in-unschedulable-pods-duration: an unschedulable pod goes back to the active
  // queue at the latest after this long, even when nothing relevant changed.
  std::chrono::milliseconds pod_max_in_unschedulable_pods_duration{300'000};

  client::LeaderElectionSettings leader_election;  // leader-elect, leader-elect-*
};

}  // namespace k3c::scheduler

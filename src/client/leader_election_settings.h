// Leader election as users tune it (plain data, apart from leader_election.h so that
// settings structs can hold it without the client).
#pragma once

#include <chrono>

namespace k3c::client {

// Upstream's flags (--leader-elect, --leader-elect-*).
struct LeaderElectionSettings {
  bool leader_elect = true;                 // false: run at once, without a Lease (one server only)
  std::chrono::seconds lease_duration{15};  // leaseDurationSeconds is whole seconds
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
};

}  // namespace k3c::client

// The socket steps the network probes share (probe_network.cpp, probe_network_grpc.cpp):
// a connect bounded by a deadline, with Go's wording for its errors.
#pragma once

#include <chrono>
#include <string>

#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet::probe_socket {

using Deadline = std::chrono::steady_clock::time_point;

// Milliseconds until `deadline`, at least 0 (a poll timeout).
int remaining_ms(Deadline deadline);

// A connected non-blocking socket (>= 0), or -1 with `why` set ("dial tcp h:p: connect:
// connection refused"); through the target's dial when it has one.
int connect_to(const ProbeTarget& target, int port, Deadline deadline, std::string& why);

}  // namespace k3c::kubelet::probe_socket

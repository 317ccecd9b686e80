// What `k3c bench hollow-nodes` simulates: how many nodes, their names and sizes, and how
// hard it may push the API server (status writers). Defaults are here and only here.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace k3c::hollow {

struct HollowSettings {
  int count = 1;                          // --count: nodes <prefix>0 .. <prefix>(count-1)
  std::string name_prefix = "hollow-";    // --name-prefix
  int64_t cpus = 4;                       // --cpu: capacity.cpu
  int64_t memory_bytes = 8LL << 30;       // --memory: capacity.memory (8Gi)
  int max_pods = 110;                     // --pods: capacity.pods
  int status_workers = 8;                 // --status-workers: pod writes in flight at most
  int heartbeat_threads = 4;              // node Lease and status writers
  // As the real kubelet: the Lease renewed every 10 s (a quarter of its 40 s duration), the
  // node status computed every 10 s and written when it changed or every 5 minutes.
  std::chrono::milliseconds heartbeat_period{10'000};
  std::string kubelet_version;  // the server's gitVersion, reported in nodeInfo
};

}  // namespace k3c::hollow

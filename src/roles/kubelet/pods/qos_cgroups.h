// The node-level cgroups above the pods', as upstream's qos container manager keeps them:
//   <root>/kubepods             cpu shares for the node's allocatable CPU
//   <root>/kubepods/burstable   cpu shares for the summed CPU requests of the Burstable pods
//   <root>/kubepods/besteffort  the least shares (2)
// Guaranteed pods sit directly in kubepods. So, under CPU contention, BestEffort pods get
// what the others leave and the Burstable tier as a whole gets what its pods requested.
// Memory limits on the tiers (upstream's alpha QOSReserved) are not set.
//
// update() is called with the summed CPU requests of the node's active Burstable pods
// (api::burstable_cpu_request_milli) when they may have changed (the relist loop, and before
// a new pod's sandbox is made so that it starts in a tier sized for it); only what differs
// from what was last applied is written; grow() while not every pod is known yet.
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

class QosCgroups {
 public:
  // `cgroup_root`: --kubelet-arg=cgroup-root; `node_cpu_milli`: the node's allocatable CPU.
  QosCgroups(runtime::RuntimeService& runtime, std::string cgroup_root, int64_t node_cpu_milli);

  // A write that fails is logged and tried again at the next call.
  void update(int64_t burstable_cpu_request_milli);
  // The same while only some of the node's pods are known (static pods before the API
  // server answered): the tiers are made, the Burstable one may grow but never shrinks.
  void grow(int64_t known_burstable_cpu_request_milli);

 private:
  void apply_shares(int64_t burstable_shares, bool grow_only);

  runtime::RuntimeService& runtime_;
  const std::string kubepods_;  // "<root>/kubepods", relative to the cgroup roots
  const int64_t node_shares_;
  std::mutex mu_;
  bool node_done_ = false, best_effort_done_ = false;  // guarded by mu_
  int64_t burstable_shares_ = 0;                       // as last applied (0: not yet)
};

}  // namespace k3c::kubelet

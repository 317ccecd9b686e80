// The kubelet's eviction manager, as upstream's (pkg/kubelet/eviction, synchronize): every
// 10 s the housekeeping thread calls synchronize(), which
//   1. reads the node's usage (eviction_stats.h) and observes the signals;
//   2. updates the pressure conditions (MemoryPressure, DiskPressure, PIDPressure: True while
//      a threshold is met and for eviction-pressure-transition-period after), which the node
//      status reports (pressure()) and the node lifecycle controller turns into taints;
//   3. evicts the pods over their own local storage limits (emptyDir sizeLimit,
//      ephemeral-storage limits), if any, and stops there;
//   4. for the threshold to act on (met for its grace period; memory first): records the
//      node's Warning "EvictionThresholdMet" "Attempting to reclaim <resource>"; for disk,
//      frees node-level resources first (unused images) and stops when that was enough;
//   5. evicts at most one pod, the first in upstream's rank that is not critical.
// The decisions are eviction_decision.h's pure functions; this class keeps the state between
// passes and does the calls.
//
// Threads: synchronize() from one thread (the housekeeping thread or a test); pressure()
// and admit() from any.
#pragma once

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "roles/kubelet/eviction/eviction_decision.h"
#include "roles/kubelet/eviction/eviction_stats.h"
#include "roles/kubelet/node_status.h"

namespace k3c::kubelet {

struct EvictionManagerConfig {
  std::vector<Threshold> thresholds;  // eviction_thresholds()
  std::chrono::milliseconds pressure_transition_period{300'000};
  int max_pod_grace_period_seconds = 0;
};

struct EvictionHooks {
  // The pods bound to the node (the pod manager's); terminal ones are skipped here.
  std::function<std::vector<nlohmann::json>()> pods;
  // Kills the pod as evicted (PodManager::evict).
  std::function<void(const Eviction&)> evict;
  // Frees unused images (ImageGarbageCollector::delete_unused); unset: nothing to free.
  std::function<void()> reclaim_disk;
  // A Warning event about the node (reason, message); may be unset.
  std::function<void(const std::string& reason, const std::string& message)> warn;
};

class EvictionManager {
 public:
  EvictionManager(EvictionManagerConfig config, EvictionStatsSource& stats, EvictionHooks hooks,
                  const Clock& clock);

  // One pass; the uids of the pods it evicted.
  std::vector<std::string> synchronize();
  // The pressure conditions as the last pass found them.
  NodePressure pressure() const;
  // Whether a new pod may start under them (admission_rejection); the rejection's message.
  std::optional<std::string> admit(const nlohmann::json& pod) const;

 private:
  // Pods not terminal and not evicted by this manager already.
  std::vector<nlohmann::json> active_pods();
  void evict(const Eviction& eviction, std::vector<std::string>& evicted);

  const EvictionManagerConfig config_;
  EvictionStatsSource& stats_;
  const EvictionHooks hooks_;
  const Clock& clock_;
  PressureState state_;
  std::set<std::string> evicted_;  // uids; forgotten once the pod is terminal or gone
  mutable std::mutex mu_;          // guards pressure_ and conditions_
  NodePressure pressure_;
  std::set<std::string> conditions_;
};

}  // namespace k3c::kubelet

// The eviction manager's decisions as pure functions over a snapshot of the node's usage, as
// upstream's (pkg/kubelet/eviction: makeSignalObservations, thresholdsMet, the node
// conditions with the pressure transition period, localStorageEviction, the rank functions
// and evictionMessage). No I/O: eviction_manager.h gathers the snapshot (eviction_stats.h)
// and acts on what these say.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "roles/kubelet/eviction/eviction_thresholds.h"

namespace k3c::kubelet {

struct FsStats {
  uint64_t capacity_bytes = 0;
  uint64_t available_bytes = 0;
  uint64_t inodes = 0;
  uint64_t inodes_free = 0;
};

struct ContainerUsage {
  std::string name;
  uint64_t memory_working_set_bytes = 0;
  uint64_t rootfs_bytes = 0;  // the container's writable layer
  uint64_t logs_bytes = 0;
};

struct PodUsage {
  std::vector<ContainerUsage> containers;        // the running ones
  std::map<std::string, uint64_t> volume_bytes;  // local volumes (emptyDir) by volume name
  uint64_t processes = 0;
};

// One look at the node. A figure that could not be read is absent, and its signals are not
// observed (as upstream skips a signal without stats).
struct NodeStats {
  std::optional<uint64_t> memory_capacity_bytes;
  std::optional<uint64_t> memory_available_bytes;  // capacity minus working set
  std::optional<FsStats> nodefs;
  std::optional<FsStats> imagefs;  // the same figures as nodefs when not dedicated
  bool dedicated_imagefs = false;  // the images live on another filesystem than nodefs
  std::optional<uint64_t> max_pids;
  std::optional<uint64_t> processes;
  std::map<std::string, PodUsage> pods;  // by pod uid; running pods only
};

struct Observation {
  int64_t available = 0;
  int64_t capacity = 0;
  bool count = false;  // inodes and pids (printed as plain numbers), not bytes
};
using Observations = std::map<Signal, Observation>;

Observations observe(const NodeStats& stats);

// The thresholds whose signal shows less available than the threshold (plus its minimum
// reclaim when `enforce_min_reclaim`: a threshold stays met until that much more is free).
std::vector<Threshold> thresholds_met(const std::vector<Threshold>& thresholds,
                                      const Observations& observed, bool enforce_min_reclaim);

// What the manager keeps from one pass to the next.
struct PressureState {
  std::vector<Threshold> met;  // met and past their grace period at the last pass
  std::map<std::pair<Signal, bool>, Clock::TimePoint> first_observed;  // by (signal, hard)
  std::map<std::string, Clock::TimePoint> condition_last_observed;     // by condition type
};

struct PressureStep {
  PressureState state;
  // The pressure conditions that are True: their threshold is met, or was within the
  // transition period.
  std::set<std::string> conditions;
  // The thresholds met for their whole grace period: what eviction acts on.
  std::vector<Threshold> act_on;
};

PressureStep evaluate_pressure(const std::vector<Threshold>& thresholds,
                               const PressureState& previous, const Observations& observed,
                               Clock::TimePoint now, std::chrono::milliseconds transition_period);

// The threshold to reclaim for (memory first, as upstream's byEvictionPriority); nullopt
// when `act_on` is empty.
std::optional<Threshold> threshold_to_reclaim(const std::vector<Threshold>& act_on);

// Static and mirror pods and pods of system-critical priority (>= 2000000000) are never
// evicted, as upstream.
bool is_critical_pod(const nlohmann::json& pod);

// The order upstream evicts pods in for the signal's resource: memory -- usage above the
// memory requests first, then lower priority, then more usage above requests; disk -- the
// same with ephemeral-storage (the writable layer, logs and local volumes; with a dedicated
// imagefs, nodefs counts logs and volumes, imagefs the writable layers); pids -- lower
// priority, then more processes. Pods without stats go first. Indexes into `pods`.
std::vector<size_t> rank_for_eviction(const std::vector<nlohmann::json>& pods,
                                      const NodeStats& stats, Signal signal);

// Upstream's message: "The node was low on resource: memory. Threshold quantity: 100Mi,
// available: 80Mi. Container x was using 200Mi, request is 0, has larger consumption of
// memory. "
std::string eviction_message(const nlohmann::json& pod, const PodUsage* usage,
                             std::string_view resource, const std::vector<Threshold>& act_on,
                             const Observations& observed);

// When the pod exceeds its own local storage limits (an emptyDir over its sizeLimit, the
// summed ephemeral-storage limits, a container over its limit): upstream's message.
std::optional<std::string> local_storage_violation(const nlohmann::json& pod, const PodUsage& usage,
                                                   bool dedicated_imagefs);

struct Eviction {
  nlohmann::json pod;
  std::string message;
  // Node-pressure evictions carry the DisruptionTarget condition (TerminationByKubelet);
  // local storage limit evictions do not, as upstream.
  bool disruption_condition = false;
  int64_t grace_period_seconds = 0;
};

// The pods evicted for exceeding their local storage limits (critical pods are not).
std::vector<Eviction> local_storage_evictions(const std::vector<nlohmann::json>& pods,
                                              const NodeStats& stats);

// The one pod to evict for `threshold` (the first in rank that is not critical): the grace
// period 0 for a hard threshold, else min(max_pod_grace_period_seconds, the pod's
// terminationGracePeriodSeconds) (a negative maximum: the pod's).
std::optional<Eviction> choose_pod_to_evict(const std::vector<nlohmann::json>& pods,
                                            const NodeStats& stats, const Threshold& threshold,
                                            const std::vector<Threshold>& act_on,
                                            const Observations& observed,
                                            int max_pod_grace_period_seconds);

// Upstream's admission under pressure (the eviction manager's Admit): with any pressure
// condition a new pod is rejected -- "The node had condition: [DiskPressure]. " -- except a
// critical pod, and, under memory pressure alone, a pod that is not BestEffort or tolerates
// the node.kubernetes.io/memory-pressure taint. nullopt: admitted.
std::optional<std::string> admission_rejection(const nlohmann::json& pod,
                                               const std::set<std::string>& conditions);

}  // namespace k3c::kubelet

// The scheduling framework in miniature: the status a filter answers, the per-pod state the
// pre-filter steps compute once per decision (CycleState), and the plugin entry points in
// upstream's default order. Plugins live one per file (plugins/*.cpp); names and reason strings
// are upstream's, because users read them in `kubectl describe pod`.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "roles/scheduler/pod_counter.h"
#include "roles/scheduler/snapshot.h"

namespace k3c::scheduler {

enum class FilterCode : uint8_t {
  kSuccess,
  kUnschedulable,  // might pass if pods were removed from the node (preemption may help)
  kUnresolvable,   // UnschedulableAndUnresolvable: preemption cannot help on this node
};

struct FilterStatus {
  FilterCode code = FilterCode::kSuccess;
  const char* plugin = "";
  std::vector<std::string> reasons;

  bool ok() const { return code == FilterCode::kSuccess; }
  static FilterStatus success() { return {}; }
  static FilterStatus fail(FilterCode code, const char* plugin, std::string reason) {
    return {code, plugin, {std::move(reason)}};
  }
};

// Counts per topology domain, keyed by "key\x1fvalue".
using TopologyCounts = std::unordered_map<std::string, int64_t>;
std::string topology_pair(const std::string& key, const std::string& value);

struct InterPodAffinityState {
  TopologyCounts existing_anti_affinity;  // domains that existing pods' anti-affinity forbids
  TopologyCounts affinity;                // domains holding pods that match all required terms
  TopologyCounts anti_affinity;           // domains holding pods the pod must avoid
};

struct SpreadConstraintState {
  const TopologySpreadConstraint* constraint = nullptr;
  PodCounter counter;                               // matching pods of the pod's namespace
  std::unordered_map<std::string, int64_t> counts;  // domain value -> matching pods
  int64_t min_count = 0;                            // over the domains, 0 below minDomains
};

struct CycleState {
  CycleState(const Snapshot& s, const PodInfo& p) : snapshot(s), pod(p) {}
  const Snapshot& snapshot;
  const PodInfo& pod;
  InterPodAffinityState inter_pod;
  std::vector<SpreadConstraintState> spread;              // one per DoNotSchedule constraint
  std::vector<const NodeSelector*> volume_node_affinity;  // of the pod's bound volumes
};

// PreFilter: computes the state; a failed status rejects the pod on every node (its message
// then stands alone in the FitError, as upstream's PreFilter messages do).
FilterStatus run_prefilters(CycleState& state);
// Filter: the first failing plugin's status, in upstream's default order.
FilterStatus run_filters(const CycleState& state, const NodeInfo& node);

// Keep the pre-filter state right while preemption takes pods off a node and puts them back.
void state_remove_pod(CycleState& state, const PodInfo& pod, const NodeInfo& node);
void state_add_pod(CycleState& state, const PodInfo& pod, const NodeInfo& node);

// The plugins (plugins/*.cpp).
FilterStatus filter_node_unschedulable(const CycleState& state, const NodeInfo& node);
FilterStatus filter_node_name(const CycleState& state, const NodeInfo& node);
FilterStatus filter_taint_toleration(const CycleState& state, const NodeInfo& node);
FilterStatus filter_node_affinity(const CycleState& state, const NodeInfo& node);
FilterStatus filter_node_ports(const CycleState& state, const NodeInfo& node);
FilterStatus filter_node_resources_fit(const CycleState& state, const NodeInfo& node);
FilterStatus filter_node_volume_limits(const CycleState& state, const NodeInfo& node);
FilterStatus prefilter_volume_binding(CycleState& state);
FilterStatus filter_volume_binding(const CycleState& state, const NodeInfo& node);
void prefilter_pod_topology_spread(CycleState& state);
FilterStatus filter_pod_topology_spread(const CycleState& state, const NodeInfo& node);
void prefilter_inter_pod_affinity(CycleState& state);
FilterStatus filter_inter_pod_affinity(const CycleState& state, const NodeInfo& node);
void spread_update(CycleState& state, const PodInfo& pod, const NodeInfo& node, int delta);
void inter_pod_update(CycleState& state, const PodInfo& pod, const NodeInfo& node, int delta);

// Scores: one normalised score (0-100) per node of `nodes`, in that order.
constexpr int64_t kMaxNodeScore = 100;
using NodeList = std::vector<const NodeInfo*>;
std::vector<int64_t> score_taint_toleration(const CycleState& state, const NodeList& nodes);
std::vector<int64_t> score_node_affinity(const CycleState& state, const NodeList& nodes);
std::vector<int64_t> score_least_allocated(const CycleState& state, const NodeList& nodes);
std::vector<int64_t> score_balanced_allocation(const CycleState& state, const NodeList& nodes);
std::vector<int64_t> score_pod_topology_spread(const CycleState& state, const NodeList& nodes);
std::vector<int64_t> score_inter_pod_affinity(const CycleState& state, const NodeList& nodes);
std::vector<int64_t> score_image_locality(const CycleState& state, const NodeList& nodes);

// Upstream's DefaultNormalizeScore: scale to 0..100 by the highest score; `reverse` flips it.
void default_normalize(std::vector<int64_t>& scores, bool reverse);

}  // namespace k3c::scheduler

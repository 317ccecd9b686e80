// schedule(): one scheduling decision as a pure function of a Snapshot and a pod — filter the
// nodes, score the feasible ones, pick the best — or, when no node fits, the diagnosis and the
// message upstream's scheduler writes into the PodScheduled condition and the event.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

struct ScheduleOptions {
  // percentageOfNodesToScore: 0 is upstream's adaptive default (50% at 100 nodes, less as the
  // cluster grows, never under 5% or 100 nodes).
  int32_t percentage_of_nodes_to_score = 0;
  // Where the search starts; pass the previous result's next_start_index so that successive
  // decisions look at different nodes first, as upstream does.
  size_t start_index = 0;
  // Upstream picks at random among the nodes with the best score; here the choice is
  // reservoir sampling driven by a generator seeded with this value and the pod's uid, so the
  // same inputs give the same node and equal nodes still share the load.
  uint64_t seed = 0;
};

struct NodeFailure {
  std::string node;
  FilterStatus status;
};

// Why the pod fits nowhere: each node's first failing filter, or one PreFilter rejection that
// applies to every node.
struct Diagnosis {
  std::vector<NodeFailure> failures;
  std::string prefilter_message;
  FilterCode prefilter_code = FilterCode::kSuccess;
};

struct ScheduleResult {
  std::string node;  // empty: unschedulable, see diagnosis
  int64_t score = 0;
  size_t evaluated_nodes = 0;
  size_t feasible_nodes = 0;
  size_t next_start_index = 0;
  Diagnosis diagnosis;

  bool scheduled() const { return !node.empty(); }
};

ScheduleResult schedule(const Snapshot& snapshot, const PodInfo& pod,
                        const ScheduleOptions& options = {});

// How many feasible nodes the filter pass looks for before it stops (upstream's
// numFeasibleNodesToFind).
size_t num_feasible_nodes_to_find(int32_t percentage, size_t num_nodes);

// Upstream's FitError text: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had
// untolerated taint {k: v}." plus " <post_filter_message>." when there is one (preemption's
// "preemption: ..."). Reasons are counted over nodes and sorted as strings, as upstream does.
std::string fit_error_message(size_t num_nodes, const Diagnosis& diagnosis,
                              const std::string& post_filter_message = "");

}  // namespace k3c::scheduler

// preempt(): upstream's DefaultPreemption as a pure function. For a pod that fits nowhere,
// find nodes where evicting pods of lower priority makes it fit, choose the fewest and least
// important victims per node, and pick the node as upstream does (fewest PodDisruptionBudget
// violations, lowest highest victim priority, smallest priority sum, fewest victims, latest
// start of the most important victims, then the first). Evicting the victims and setting
// status.nominatedNodeName is the caller's job.
#pragma once

#include <string>
#include <vector>

#include "roles/scheduler/schedule.h"

namespace k3c::scheduler {

struct PreemptionOptions {
  // Upstream's DefaultPreemptionArgs: dry-run at least this share / number of the nodes
  // where preemption might help before choosing.
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;
  // Where the dry run starts among those nodes (upstream: random); taken modulo their count.
  size_t offset = 0;
};

struct PreemptionResult {
  std::string nominated_node;   // empty: preemption does not help
  std::vector<PodPtr> victims;  // most important first
  int num_pdb_violations = 0;
  // When preemption does not help: the "preemption: ..." text that follows the FitError
  // message (pass it to fit_error_message as post_filter_message).
  std::string message;

  bool found() const { return !nominated_node.empty(); }
};

// `diagnosis` is the failed schedule()'s, for the same snapshot and pod.
PreemptionResult preempt(const Snapshot& snapshot, const PodInfo& pod, const Diagnosis& diagnosis,
                         const PreemptionOptions& options = {});

// Upstream's MoreImportantPod: higher priority, then the earlier started.
bool more_important(const PodInfo& a, const PodInfo& b);

}  // namespace k3c::scheduler

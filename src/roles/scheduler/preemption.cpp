// Preemption: candidate nodes, victims per node, and the choice of node (see preemption.h).
#include "roles/scheduler/preemption.h"

#include <algorithm>
#include <limits>

namespace k3c::scheduler {

namespace {

constexpr const char* kNotHelpful = "Preemption is not helpful for scheduling";

struct Candidate {
  std::string node;
  std::vector<PodPtr> victims;
  int pdb_violations = 0;
};

struct Victims {
  FilterStatus status;
  Candidate candidate;
};

// Splits pods (most important first) into those whose eviction would break a budget and the
// rest, spending each budget's allowed disruptions in that order, as upstream does.
void split_by_budgets(const Snapshot& snapshot, const std::vector<PodPtr>& pods,
                      std::vector<PodPtr>& violating, std::vector<PodPtr>& other) {
  std::vector<int32_t> allowed;
  for (const auto& b : snapshot.disruption_budgets) allowed.push_back(b.disruptions_allowed);
  for (const PodPtr& p : pods) {
    bool violated = false;
    for (size_t i = 0; i < snapshot.disruption_budgets.size(); ++i) {
      const DisruptionBudget& b = snapshot.disruption_budgets[i];
      if (b.namespace_ != p->namespace_ || !b.selector || b.selector->empty() ||
          !b.selector->matches(p->labels))
        continue;
      if (--allowed[i] < 0) violated = true;
    }
    (violated ? violating : other).push_back(p);
  }
}

Victims select_victims(const CycleState& base, const NodeInfo& original) {
  const Snapshot& snapshot = base.snapshot;
  const PodInfo& pod = base.pod;
  Victims out;
  out.candidate.node = original.node().name;
  CycleState state = base;  // copies: the snapshot and the base state stay untouched
  NodeInfo node = original;
  std::vector<PodPtr> potential;
  for (const PodPtr& p : node.pods()) {
    if (p->priority < pod.priority) potential.push_back(p);
  }
  if (potential.empty()) {
    out.status = FilterStatus::fail(FilterCode::kUnresolvable, "DefaultPreemption",
                                    "No preemption victims found for incoming pod");
    return out;
  }
  for (const PodPtr& p : potential) {
    node.remove_pod(p->uid);
    state_remove_pod(state, *p, node);
  }
  out.status = run_filters(state, node);
  if (!out.status.ok()) return out;
  std::sort(potential.begin(), potential.end(),
            [](const PodPtr& a, const PodPtr& b) { return more_important(*a, *b); });
  std::vector<PodPtr> violating, other;
  split_by_budgets(snapshot, potential, violating, other);
  // Give back as many pods as still leave room, the most important first.
  auto reprieve = [&](const PodPtr& p) {
    node.add_pod(p);
    state_add_pod(state, *p, node);
    if (run_filters(state, node).ok()) return true;
    node.remove_pod(p->uid);
    state_remove_pod(state, *p, node);
    out.candidate.victims.push_back(p);
    return false;
  };
  for (const PodPtr& p : violating) {
    if (!reprieve(p)) ++out.candidate.pdb_violations;
  }
  for (const PodPtr& p : other) reprieve(p);
  std::sort(out.candidate.victims.begin(), out.candidate.victims.end(),
            [](const PodPtr& a, const PodPtr& b) { return more_important(*a, *b); });
  return out;
}

// Lexicographic comparison of upstream's criteria; true when a is the better choice.
bool better_candidate(const Candidate& a, const Candidate& b) {
  if (a.pdb_violations != b.pdb_violations) return a.pdb_violations < b.pdb_violations;
  int32_t a_top = a.victims.front()->priority, b_top = b.victims.front()->priority;
  if (a_top != b_top) return a_top < b_top;
  auto sum = [](const Candidate& c) {
    int64_t s = 0;
    // Shifted by 2^31 so that negative priorities still add up as "more" (upstream).
    for (const PodPtr& p : c.victims) s += int64_t{p->priority} + (int64_t{1} << 31);
    return s;
  };
  if (sum(a) != sum(b)) return sum(a) < sum(b);
  if (a.victims.size() != b.victims.size()) return a.victims.size() < b.victims.size();
  // The earliest start among each node's highest-priority victims: the later, the better.
  auto earliest = [](const Candidate& c) {
    std::string e;
    for (const PodPtr& p : c.victims) {
      if (p->priority != c.victims.front()->priority) break;
      if (e.empty() || (!p->start_time.empty() && p->start_time < e)) e = p->start_time;
    }
    return e;
  };
  return earliest(a) > earliest(b);
}

size_t num_candidates(const PreemptionOptions& o, size_t nodes) {
  size_t n = nodes * static_cast<size_t>(std::max(0, o.min_candidate_nodes_percentage)) / 100;
  n = std::max(n, static_cast<size_t>(std::max(0, o.min_candidate_nodes_absolute)));
  return std::min(n, nodes);
}

std::string failure_message(size_t num_nodes, const Diagnosis& statuses) {
  return "preemption: " + fit_error_message(num_nodes, statuses);
}

}  // namespace

bool more_important(const PodInfo& a, const PodInfo& b) {
  if (a.priority != b.priority) return a.priority > b.priority;
  // No start time yet reads as "now" upstream: the least senior.
  if (a.start_time.empty() != b.start_time.empty()) return b.start_time.empty();
  return a.start_time < b.start_time;
}

PreemptionResult preempt(const Snapshot& snapshot, const PodInfo& pod, const Diagnosis& diagnosis,
                         const PreemptionOptions& options) {
  PreemptionResult result;
  if (pod.preempt_never) {
    result.message = "preemption: not eligible due to preemptionPolicy=Never.";
    return result;
  }
  if (const NodeInfo* nominated = snapshot.find(pod.nominated_node_name)) {
    for (const PodPtr& p : nominated->pods()) {
      if (p->priority < pod.priority && p->terminating) {
        result.message = "preemption: not eligible due to a terminating pod on the nominated node.";
        return result;
      }
    }
  }
  Diagnosis statuses;  // what the message reports per node
  std::vector<const NodeInfo*> potential;
  for (const NodeFailure& f : diagnosis.failures) {
    const NodeInfo* node = snapshot.find(f.node);
    if (node && f.status.code == FilterCode::kUnschedulable) {
      potential.push_back(node);
    } else {
      statuses.failures.push_back({f.node, FilterStatus::fail(FilterCode::kUnresolvable,
                                                              "DefaultPreemption", kNotHelpful)});
    }
  }
  CycleState base(snapshot, pod);
  // PreFilter passed for this pod in schedule(), or no node would be Unschedulable.
  (void)run_prefilters(base);
  std::vector<Candidate> candidates;
  size_t wanted = num_candidates(options, potential.size());
  for (size_t i = 0; i < potential.size() && candidates.size() < wanted; ++i) {
    const NodeInfo& node = *potential[(options.offset + i) % potential.size()];
    Victims v = select_victims(base, node);
    if (!v.status.ok()) {
      statuses.failures.push_back({node.node().name, std::move(v.status)});
    } else if (v.candidate.victims.empty()) {
      // The pod fits there without evicting anyone: take it.
      result.nominated_node = v.candidate.node;
      return result;
    } else {
      candidates.push_back(std::move(v.candidate));
    }
  }
  if (candidates.empty()) {
    result.message = failure_message(snapshot.size(), statuses);
    return result;
  }
  size_t best = 0;
  for (size_t i = 1; i < candidates.size(); ++i) {
    if (better_candidate(candidates[i], candidates[best])) best = i;
  }
  result.nominated_node = candidates[best].node;
  result.victims = std::move(candidates[best].victims);
  result.num_pdb_violations = candidates[best].pdb_violations;
  return result;
}

}  // namespace k3c::scheduler

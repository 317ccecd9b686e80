// NodeResourcesBalancedAllocation: prefer nodes where cpu and memory would be used in equal
// fractions after placing the pod: 100 * (1 - standard deviation of the fractions).
#include <cmath>

#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

std::vector<int64_t> score_balanced_allocation(const CycleState& state, const NodeList& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  const Resources& pod = state.pod.request;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Resources& have = nodes[i]->node().allocatable;
    const Resources& used = nodes[i]->requested();
    double fractions[2];
    int n = 0;
    auto add = [&](int64_t requested, int64_t allocatable) {
      if (allocatable == 0) return;
      fractions[n++] = std::min(1.0, static_cast<double>(requested) / allocatable);
    };
    add(used.milli_cpu + pod.milli_cpu, have.milli_cpu);
    add(used.memory + pod.memory, have.memory);
    double std_dev = n == 2 ? std::fabs((fractions[0] - fractions[1]) / 2) : 0.0;
    scores[i] = static_cast<int64_t>((1 - std_dev) * kMaxNodeScore);
  }
  return scores;
}

}  // namespace k3c::scheduler

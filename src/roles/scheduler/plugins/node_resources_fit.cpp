// NodeResourcesFit: the pod's effective request must fit in allocatable minus what the node's
// pods request (cpu, memory, ephemeral-storage, extended resources) and the pod count must stay
// within allocatable pods. Scoring: LeastAllocated over cpu and memory (weight 1 each).
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

namespace {

struct Check {
  int64_t wanted;
  int64_t used;
  int64_t allocatable;
};

// A request larger than the whole node cannot be helped by preemption: upstream marks such a
// node UnschedulableAndUnresolvable.
void check(const Check& c, std::string reason, FilterStatus& status) {
  if (c.wanted <= 0 || c.wanted <= c.allocatable - c.used) return;
  status.plugin = "NodeResourcesFit";
  if (status.code == FilterCode::kSuccess) status.code = FilterCode::kUnschedulable;
  if (c.wanted > c.allocatable) status.code = FilterCode::kUnresolvable;
  status.reasons.push_back(std::move(reason));
}

}  // namespace

FilterStatus filter_node_resources_fit(const CycleState& state, const NodeInfo& node) {
  FilterStatus status;
  const Resources& want = state.pod.request;
  const Resources& used = node.requested();
  const Resources& have = node.node().allocatable;
  if (static_cast<int64_t>(node.pods().size()) + 1 > have.pods) {
    status = FilterStatus::fail(FilterCode::kUnschedulable, "NodeResourcesFit", "Too many pods");
  }
  check({want.milli_cpu, used.milli_cpu, have.milli_cpu}, "Insufficient cpu", status);
  check({want.memory, used.memory, have.memory}, "Insufficient memory", status);
  check({want.ephemeral_storage, used.ephemeral_storage, have.ephemeral_storage},
        "Insufficient ephemeral-storage", status);
  for (const auto& [name, amount] : want.scalar) {
    check({amount, used.scalar_value(name), have.scalar_value(name)}, "Insufficient " + name,
          status);
  }
  return status;
}

static int64_t least_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * kMaxNodeScore / capacity;
}

std::vector<int64_t> score_least_allocated(const CycleState& state, const NodeList& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  const Resources& pod = state.pod.non_zero_request;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Resources& have = nodes[i]->node().allocatable;
    const Resources& used = nodes[i]->non_zero_requested();
    int64_t sum = 0, weights = 0;
    if (have.milli_cpu != 0) {
      sum += least_requested(used.milli_cpu + pod.milli_cpu, have.milli_cpu);
      ++weights;
    }
    if (have.memory != 0) {
      sum += least_requested(used.memory + pod.memory, have.memory);
      ++weights;
    }
    scores[i] = weights == 0 ? 0 : sum / weights;
  }
  return scores;
}

}  // namespace k3c::scheduler

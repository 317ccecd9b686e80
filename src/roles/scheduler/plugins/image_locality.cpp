// ImageLocality: prefer nodes that already hold the pod's images, weighted by image size and
// by how widely the image is spread (an image on every node says little), between upstream's
// thresholds of 23 MB and 1000 MB per container.
#include <algorithm>

#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

namespace {

constexpr int64_t kMb = 1024 * 1024;
constexpr int64_t kMinThreshold = 23 * kMb;
constexpr int64_t kMaxContainerThreshold = 1000 * kMb;

int64_t image_sum(const CycleState& state, const NodeModel& node, size_t total_nodes) {
  int64_t sum = 0;
  for (const std::string& image : state.pod.images) {
    auto it = std::lower_bound(node.images.begin(), node.images.end(), image,
                               [](const NodeImage& i, const std::string& n) { return i.name < n; });
    if (it == node.images.end() || it->name != image) continue;
    double spread = static_cast<double>(state.snapshot.image_node_count(image)) /
                    static_cast<double>(total_nodes);
    sum += static_cast<int64_t>(static_cast<double>(it->size_bytes) * spread);
  }
  return sum;
}

}  // namespace

std::vector<int64_t> score_image_locality(const CycleState& state, const NodeList& nodes) {
  std::vector<int64_t> scores(nodes.size(), 0);
  size_t total = state.snapshot.size();
  if (total == 0 || state.pod.images.empty()) return scores;
  int64_t max_threshold = kMaxContainerThreshold * static_cast<int64_t>(state.pod.container_count);
  for (size_t i = 0; i < nodes.size(); ++i) {
    int64_t sum =
        std::clamp(image_sum(state, nodes[i]->node(), total), kMinThreshold, max_threshold);
    scores[i] = kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
  }
  return scores;
}

}  // namespace k3c::scheduler

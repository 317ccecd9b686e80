// Snapshot: incremental upkeep of the nodes, pods and image counts (see snapshot.h).
#include "roles/scheduler/snapshot.h"

#include <algorithm>

namespace k3c::scheduler {

void Snapshot::count_images(const NodeModel& node, int delta) {
  for (const NodeImage& image : node.images) {
    int& n = image_nodes_[image.name];
    n += delta;
    if (n <= 0) image_nodes_.erase(image.name);
  }
}

// Index keys that no label can produce (a pod's namespace is never empty), for the nodes
// running pods with affinity terms.
static const std::string& affinity_pods_key() {
  static const std::string key = label_index_key("", "", "affinity");
  return key;
}
static const std::string& required_anti_affinity_pods_key() {
  static const std::string key = label_index_key("", "", "required-anti-affinity");
  return key;
}

void Snapshot::index_labels(const PodInfo& pod, uint32_t position, int delta) {
  if (pod.has_affinity()) index_key(affinity_pods_key(), position, delta);
  if (!pod.required_anti_affinity.empty())
    index_key(required_anti_affinity_pods_key(), position, delta);
  if (pod.terminating) return;
  for (const auto& [key, value] : pod.labels) {
    index_key(label_index_key(pod.namespace_, key, value), position, delta);
  }
}

const Snapshot::LabelNodes* Snapshot::nodes_with_affinity_pods() const {
  return nodes_with_label(affinity_pods_key());
}

const Snapshot::LabelNodes* Snapshot::nodes_with_required_anti_affinity_pods() const {
  return nodes_with_label(required_anti_affinity_pods_key());
}

void Snapshot::index_key(const std::string& index_key, uint32_t position, int delta) {
  LabelNodes& nodes = label_nodes_[index_key];
  auto it = std::find_if(nodes.begin(), nodes.end(),
                         [&](const auto& entry) { return entry.first == position; });
  if (it == nodes.end()) it = nodes.insert(nodes.end(), {position, 0});
  it->second += delta;
  if (it->second == 0) {
    *it = nodes.back();
    nodes.pop_back();
  }
  if (nodes.empty()) label_nodes_.erase(index_key);
}

const Snapshot::LabelNodes* Snapshot::nodes_with_label(const std::string& index_key) const {
  auto it = label_nodes_.find(index_key);
  return it == label_nodes_.end() ? nullptr : &it->second;
}

void Snapshot::add_node(NodePtr node) {
  count_images(*node, +1);
  if (auto it = index_.find(node->name); it != index_.end()) {
    NodeInfo& existing = nodes_[it->second];
    count_images(existing.node(), -1);
    existing.set_node(std::move(node));
    return;
  }
  index_.emplace(node->name, nodes_.size());
  nodes_.emplace_back(std::move(node));
}

void Snapshot::remove_node(const std::string& name) {
  auto it = index_.find(name);
  if (it == index_.end()) return;
  size_t at = it->second;
  count_images(nodes_[at].node(), -1);
  for (const PodPtr& p : nodes_[at].pods()) index_labels(*p, static_cast<uint32_t>(at), -1);
  index_.erase(it);
  if (at + 1 != nodes_.size()) {
    // The last node moves into the freed position: re-key its index entries.
    auto last = static_cast<uint32_t>(nodes_.size() - 1);
    for (const PodPtr& p : nodes_.back().pods()) {
      index_labels(*p, last, -1);
      index_labels(*p, static_cast<uint32_t>(at), +1);
    }
    nodes_[at] = std::move(nodes_.back());
    index_[nodes_[at].node().name] = at;
  }
  nodes_.pop_back();
}

Status Snapshot::add_pod(PodPtr pod) {
  auto it = index_.find(pod->node_name);
  if (it == index_.end()) {
    return error(Code::kNotFound, "node \"" + pod->node_name + "\" of pod " + pod->key() +
                                      " is not in the snapshot");
  }
  index_labels(*pod, static_cast<uint32_t>(it->second), +1);
  nodes_[it->second].add_pod(std::move(pod));
  return Status::ok();
}

Status Snapshot::remove_pod(const std::string& node_name, const std::string& uid) {
  auto it = index_.find(node_name);
  PodPtr removed = it == index_.end() ? nullptr : nodes_[it->second].remove_pod(uid);
  if (!removed) {
    return error(Code::kNotFound, "pod " + uid + " is not on node \"" + node_name + "\"");
  }
  index_labels(*removed, static_cast<uint32_t>(it->second), -1);
  return Status::ok();
}

const NodeInfo* Snapshot::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

int Snapshot::image_node_count(const std::string& image) const {
  auto it = image_nodes_.find(image);
  return it == image_nodes_.end() ? 0 : it->second;
}

}  // namespace k3c::scheduler

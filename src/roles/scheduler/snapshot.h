// Snapshot: everything one scheduling decision reads — the nodes with their pods (NodeInfo),
// how many nodes hold each image, namespace labels, PersistentVolumeClaims and
// PersistentVolumes as far as scheduling needs them, and PodDisruptionBudgets for preemption.
//
// The scheduler's cache owns one and applies informer events to it incrementally (add/update/
// remove a node, add/remove an assigned pod); schedule() and preempt() take it by const
// reference and never change it. Not thread-safe: the owner serialises updates and decisions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "roles/scheduler/matching.h"
#include "roles/scheduler/node_info.h"

namespace k3c::scheduler {

// A PersistentVolumeClaim as VolumeBinding sees it.
struct ClaimInfo {
  std::string volume_name;  // spec.volumeName of a bound claim; empty when unbound
  // Binding mode of its StorageClass: WaitForFirstConsumer claims are bound after scheduling
  // (by the PV binder / local-path provisioner), Immediate ones must be bound before.
  bool wait_for_first_consumer = false;
};

// A PodDisruptionBudget as preemption sees it.
struct DisruptionBudget {
  std::string namespace_;
  std::optional<LabelSelector> selector;
  int32_t disruptions_allowed = 0;
};

class Snapshot {
 public:
  void add_node(NodePtr node);  // replaces a node of the same name, keeping its pods
  void remove_node(const std::string& name);
  // The pod must be assigned (node_name set) to a node of the snapshot.
  Status add_pod(PodPtr pod);
  Status remove_pod(const std::string& node_name, const std::string& uid);

  size_t size() const { return nodes_.size(); }
  const NodeInfo& node(size_t i) const { return nodes_[i]; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  const NodeInfo* find(const std::string& name) const;
  // The nodes holding pods (not terminating) labelled key=value in a namespace, as
  // (position in nodes(), how many) for label_index_key(ns, key, value); nullptr for none.
  // Counting a workload's pods per topology domain walks only the nodes that run it.
  using LabelNodes = std::vector<std::pair<uint32_t, int64_t>>;
  const LabelNodes* nodes_with_label(const std::string& index_key) const;
  // The nodes running pods with any pod (anti-)affinity, and with required anti-affinity:
  // InterPodAffinity reads existing pods' terms only there.
  const LabelNodes* nodes_with_affinity_pods() const;
  const LabelNodes* nodes_with_required_anti_affinity_pods() const;
  // How many nodes report an image (ImageLocality spreads its score by this).
  int image_node_count(const std::string& image) const;

  // Data the owner fills in directly.
  NamespaceLabels namespaces;
  std::map<std::string, ClaimInfo> claims;  // "namespace/name" -> claim
  // PersistentVolume name -> its required node affinity (absent: usable from any node).
  std::map<std::string, std::optional<NodeSelector>> volume_node_affinity;
  std::vector<DisruptionBudget> disruption_budgets;

 private:
  void count_images(const NodeModel& node, int delta);
  void index_labels(const PodInfo& pod, uint32_t position, int delta);
  void index_key(const std::string& index_key, uint32_t position, int delta);

  std::vector<NodeInfo> nodes_;
  std::unordered_map<std::string, size_t> index_;
  std::unordered_map<std::string, int> image_nodes_;
  std::unordered_map<std::string, LabelNodes> label_nodes_;
};

}  // namespace k3c::scheduler

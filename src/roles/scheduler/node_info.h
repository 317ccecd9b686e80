// NodeInfo: one node and what its pods use (requested resources, host ports, volumes), kept
// up to date one pod at a time (add_pod / remove_pod) as the scheduler's cache sees informer
// events. Copyable cheaply (pods and node are shared pointers): preemption works on copies.
// Not thread-safe; a Snapshot is read by one scheduling cycle at a time.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "roles/scheduler/model.h"

namespace k3c::scheduler {

class NodeInfo {
 public:
  explicit NodeInfo(NodePtr node);

  const NodeModel& node() const { return *node_; }
  const NodePtr& node_ptr() const { return node_; }
  void set_node(NodePtr node) { node_ = std::move(node); }

  const std::vector<PodPtr>& pods() const { return pods_; }
  // The subset with any pod (anti-)affinity, and with required anti-affinity: InterPodAffinity
  // only looks at these for the rules of existing pods.
  const std::vector<PodPtr>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const Resources& requested() const { return requested_; }
  const Resources& non_zero_requested() const { return non_zero_requested_; }
  const std::vector<HostPort>& used_ports() const { return used_ports_; }
  // PVC "namespace/name" -> pods on this node using it.
  const std::map<std::string, int>& pvc_ref_counts() const { return pvc_ref_counts_; }

  // How many pods that are not terminating carry label key=value in namespace ns; the key is
  // label_index_key(ns, key, value). Counting pods that match a selector such as app=web is
  // the inner loop of topology spread and pod affinity: this answers it without a scan.
  int64_t label_count(const std::string& index_key) const {
    auto it = label_counts_.find(index_key);
    return it == label_counts_.end() ? 0 : it->second;
  }

  void add_pod(PodPtr pod);
  // The removed pod; nullptr when no pod with that uid is on the node.
  PodPtr remove_pod(const std::string& uid);

 private:
  NodePtr node_;
  std::vector<PodPtr> pods_;
  std::vector<PodPtr> pods_with_affinity_;
  std::vector<PodPtr> pods_with_required_anti_affinity_;
  Resources requested_;
  Resources non_zero_requested_;
  std::vector<HostPort> used_ports_;
  std::map<std::string, int> pvc_ref_counts_;
  std::unordered_map<std::string, int64_t> label_counts_;
};

std::string label_index_key(const std::string& ns, const std::string& key,
                            const std::string& value);

}  // namespace k3c::scheduler

// NodeInfo: a node and the sums over its pods (see node_info.h).
#include "roles/scheduler/node_info.h"

#include <algorithm>

namespace k3c::scheduler {

NodeInfo::NodeInfo(NodePtr node) : node_(std::move(node)) {}

std::string label_index_key(const std::string& ns, const std::string& key,
                            const std::string& value) {
  std::string k;
  k.reserve(ns.size() + key.size() + value.size() + 2);
  k.append(ns).push_back('\x1f');
  k.append(key).push_back('\x1f');
  k.append(value);
  return k;
}

static void count_labels(std::unordered_map<std::string, int64_t>& counts, const PodInfo& pod,
                         int delta) {
  if (pod.terminating) return;
  for (const auto& [key, value] : pod.labels) {
    auto [it, inserted] = counts.emplace(label_index_key(pod.namespace_, key, value), 0);
    it->second += delta;
    if (it->second == 0) counts.erase(it);
  }
}

void NodeInfo::add_pod(PodPtr pod) {
  requested_.add(pod->request);
  non_zero_requested_.add(pod->non_zero_request);
  for (const HostPort& p : pod->host_ports) used_ports_.push_back(p);
  for (const std::string& claim : pod->pvc_names) ++pvc_ref_counts_[pod->namespace_ + "/" + claim];
  count_labels(label_counts_, *pod, +1);
  if (pod->has_affinity()) pods_with_affinity_.push_back(pod);
  if (!pod->required_anti_affinity.empty()) pods_with_required_anti_affinity_.push_back(pod);
  pods_.push_back(std::move(pod));
}

static void erase_uid(std::vector<PodPtr>& pods, const std::string& uid) {
  auto it = std::find_if(pods.begin(), pods.end(), [&](const PodPtr& p) { return p->uid == uid; });
  if (it != pods.end()) pods.erase(it);
}

PodPtr NodeInfo::remove_pod(const std::string& uid) {
  auto it =
      std::find_if(pods_.begin(), pods_.end(), [&](const PodPtr& p) { return p->uid == uid; });
  if (it == pods_.end()) return nullptr;
  PodPtr pod = *it;
  pods_.erase(it);
  erase_uid(pods_with_affinity_, uid);
  erase_uid(pods_with_required_anti_affinity_, uid);
  count_labels(label_counts_, *pod, -1);
  requested_.subtract(pod->request);
  non_zero_requested_.subtract(pod->non_zero_request);
  for (const HostPort& p : pod->host_ports) {
    auto used = std::find_if(used_ports_.begin(), used_ports_.end(), [&](const HostPort& u) {
      return u.port == p.port && u.ip == p.ip && u.protocol == p.protocol;
    });
    if (used != used_ports_.end()) used_ports_.erase(used);
  }
  for (const std::string& claim : pod->pvc_names) {
    auto ref = pvc_ref_counts_.find(pod->namespace_ + "/" + claim);
    if (ref != pvc_ref_counts_.end() && --ref->second <= 0) pvc_ref_counts_.erase(ref);
  }
  return pod;
}

}  // namespace k3c::scheduler

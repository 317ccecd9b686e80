// The scheduler's cache (see scheduler_cache.h).
#include "roles/scheduler/role/scheduler_cache.h"

namespace k3c::scheduler {

void SchedulerCache::add_or_update_node(NodePtr node) {
  std::lock_guard lock(mu_);
  std::string name = node->name;
  bool known = snapshot_.find(name) != nullptr;
  snapshot_.add_node(std::move(node));
  if (known) return;
  if (auto it = pods_by_node_.find(name); it != pods_by_node_.end()) {
    for (const std::string& uid : it->second) {
      // Cannot fail: the node was just added.
      (void)snapshot_.add_pod(pods_.at(uid).pod);
    }
  }
}

void SchedulerCache::remove_node(const std::string& name) {
  std::lock_guard lock(mu_);
  // Its pods leave the snapshot with it and stay in pods_ until the informer removes them.
  snapshot_.remove_node(name);
}

void SchedulerCache::drop_locked(const std::string& uid) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  const std::string& node = it->second.pod->node_name;
  if (snapshot_.find(node)) {
    (void)snapshot_.remove_pod(node, uid);  // present: it was added with the node
  }
  auto by_node = pods_by_node_.find(node);
  if (by_node != pods_by_node_.end()) {
    by_node->second.erase(uid);
    if (by_node->second.empty()) pods_by_node_.erase(by_node);
  }
  pods_.erase(it);
}

void SchedulerCache::put_locked(PodPtr pod, bool assumed) {
  std::string uid = pod->uid;
  drop_locked(uid);
  pods_by_node_[pod->node_name].insert(uid);
  if (snapshot_.find(pod->node_name)) (void)snapshot_.add_pod(pod);  // node present: succeeds
  pods_.emplace(uid, PodState{std::move(pod), assumed});
}

void SchedulerCache::add_or_update_pod(PodPtr pod) {
  if (pod->node_name.empty()) return;
  std::lock_guard lock(mu_);
  put_locked(std::move(pod), false);
}

void SchedulerCache::remove_pod(const std::string& uid) {
  std::lock_guard lock(mu_);
  drop_locked(uid);
}

void SchedulerCache::assume(PodPtr pod) {
  std::lock_guard lock(mu_);
  put_locked(std::move(pod), true);
}

void SchedulerCache::forget(const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  // Only an assumption is forgotten; a pod the informer has seen bound stays.
  if (it != pods_.end() && it->second.assumed) drop_locked(uid);
}

bool SchedulerCache::is_assumed(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  return it != pods_.end() && it->second.assumed;
}

size_t SchedulerCache::pod_count() const {
  std::lock_guard lock(mu_);
  return pods_.size();
}

}  // namespace k3c::scheduler

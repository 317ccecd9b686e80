// The scheduler's cache: the Snapshot kept current from the node and pod informers, plus the
// pods the scheduler has "assumed" (decided and sent to bind, not yet seen bound by the
// informer), as upstream's cache does with assume/forget. Counting assumed pods on their node
// keeps two quick decisions from both taking the last free room.
//
// Pods are kept per node name also while their node is unknown (the pod informer can see a
// pod before the node informer sees its node, and a node can be deleted under its pods); they
// count in the snapshot while the node is there.
//
// Threads: every method from any thread; read()/write() hold the cache's lock while the
// callback runs (a scheduling decision reads a consistent snapshot; informer events wait).
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "roles/scheduler/snapshot.h"

namespace k3c::scheduler {

class SchedulerCache {
 public:
  void add_or_update_node(NodePtr node);
  void remove_node(const std::string& name);
  // An assigned pod as the informer sees it (added or changed). Confirms an assumed pod of
  // the same uid.
  void add_or_update_pod(PodPtr pod);
  void remove_pod(const std::string& uid);

  // Counts `pod` (node_name set to the chosen node) before the informer shows it bound.
  void assume(PodPtr pod);
  // The binding failed: the assumed pod no longer counts.
  void forget(const std::string& uid);
  bool is_assumed(const std::string& uid) const;
  size_t pod_count() const;

  template <typename F>
  auto read(F&& f) const {
    std::lock_guard lock(mu_);
    return f(static_cast<const Snapshot&>(snapshot_));
  }
  // For the data the owner fills in directly (namespaces, claims, budgets).
  template <typename F>
  auto write(F&& f) {
    std::lock_guard lock(mu_);
    return f(snapshot_);
  }

 private:
  struct PodState {
    PodPtr pod;
    bool assumed = false;
  };
  void put_locked(PodPtr pod, bool assumed);
  void drop_locked(const std::string& uid);

  mutable std::mutex mu_;  // guards everything below
  Snapshot snapshot_;
  std::unordered_map<std::string, PodState> pods_;                                 // uid -> pod
  std::unordered_map<std::string, std::unordered_set<std::string>> pods_by_node_;  // -> uids
};

}  // namespace k3c::scheduler

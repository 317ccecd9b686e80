// Hollow nodes (kubemark's idea, `k3c bench hollow-nodes`): N simulated nodes that look to the
// control plane like real kubelets, for scale tests of the apiserver, scheduler and
// controllers without running containers. Everything goes through the API client as a real
// kubelet's would (over HTTPS from the command):
//
//   - each node registers and reports its status with the real kubelet's NodeReporter
//     (labels, capacity/allocatable, conditions, nodeInfo, addresses) and renews its Lease in
//     kube-node-lease every heartbeat period; a few heartbeat threads share the nodes, each
//     spreading its nodes' renewals evenly over the period;
//   - one informer on every bound pod (fieldSelector spec.nodeName!=) and one on the nodes
//     serve all the nodes: 1,000 nodes are two watches, not 1,000. Handlers queue the keys of
//     pods on our nodes on one work queue (bounded by the pods that exist; a key is never
//     handled by two workers);
//   - `status_workers` workers (the bound on status writes in flight) report each pod Running
//     and Ready (hollow_pod_status.h) with an IP from its node's podCIDR (once node IPAM set
//     it; until then the pod waits) and confirm graceful deletions (grace 0, uid
//     precondition) as the kubelet's status manager does.
//
// Threads: start() and stop() from one owner thread; counters from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/client.h"
#include "client/informer.h"
#include "client/work_queue.h"
#include "core/clock.h"
#include "roles/hollow/hollow_settings.h"
#include "roles/hollow/pod_addresses.h"
#include "roles/kubelet/machine_probe.h"

namespace k3c::hollow {

// The node's name and InternalIP: <prefix><index>, 172.16.0.0/12 counted up from .0.1.
std::string node_name(const HollowSettings& settings, int index);
std::string node_address(int index);

class HollowNodes {
 public:
  // `machine`: what the host says of itself (kernel, OS, architecture); each node gets its
  // own size and identity on top of it.
  HollowNodes(client::Client& client, HollowSettings settings, kubelet::MachineInfo machine,
              const Clock& clock);
  ~HollowNodes();
  HollowNodes(const HollowNodes&) = delete;
  HollowNodes& operator=(const HollowNodes&) = delete;

  // Starts the informers, the workers and the heartbeat threads (which register the nodes
  // first, all at once, then heartbeat). Returns at once.
  void start();
  // Stops heartbeating and writing, ends the watches, joins every thread. Idempotent.
  void stop();

  // One pass over a pod's key: what a worker does.
  Status sync_pod(const std::string& key);

  size_t nodes_registered() const { return registered_.load(); }
  size_t pods_reported() const { return reported_.load(); }

 private:
  struct Node;
  struct PodRecord {
    std::chrono::system_clock::time_point started;
    size_t written = 0;  // hash of the status last written (0: none)
  };
  void heartbeat_loop(int thread_index);
  void heartbeat(Node& node);
  void work();
  void forget_pod(const std::string& uid);
  bool ours(const nlohmann::json& pod) const;
  bool sleep_until(Clock::TimePoint when);

  client::Client& client_;
  const HollowSettings settings_;
  const Clock& clock_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> by_name_;  // fixed after construction
  client::Informer pods_;
  client::Informer node_objects_;
  client::WorkQueue queue_;
  PodAddresses addresses_;

  std::mutex records_mu_;
  std::unordered_map<std::string, PodRecord> records_;  // pod uid -> record; guarded

  std::atomic<size_t> registered_{0};
  std::atomic<size_t> reported_{0};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by stop_mu_
  std::vector<std::thread> threads_;
};

}  // namespace k3c::hollow

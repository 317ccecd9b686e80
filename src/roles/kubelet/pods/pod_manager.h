// The kubelet's pod side: keeps every pod bound to this node in sync with the runtime.
//
//   - An informer lists and watches the pods with spec.nodeName=<node>; its handlers only
//     queue the pod's key ("namespace/name") on a work queue (a key is never synced by two
//     workers at once).
//   - Workers (client/queue_workers.h: one stays, more start while keys wait, up to
//     `workers`, so that a pod stopping for its whole grace period holds up no other pod)
//     run sync_pod() (pod_sync.h) for a key, write the status through
//     pods/<name>/status (a merge patch carrying the uid as precondition) only when it
//     changed, and requeue the key when a backoff ends. A deleted pod whose containers are
//     gone is removed from the API with gracePeriodSeconds 0 and a uid precondition, as
//     upstream's status manager does.
//   - A relist loop (upstream's PLEG) lists the runtime every `relist_period`, queues the
//     pods whose containers changed (a process exiting), and, once the API's pods were
//     listed, removes sandboxes that no pod owns any more (by the pod uid label): left over
//     from force-deleted pods or an earlier run. A pod from the API waits for the first
//     list of Services (their variables go into its containers).
//   - Static pods (static_pods.h): with a manifest directory, the relist loop rescans it
//     every `file_check_frequency`, from the start and whether or not an API server answers
//     (as upstream's); a sync of a static pod's key runs the pod from its file (with the
//     Services known, none before a first list) and, once the API's pods were listed,
//     keeps its mirror pod in the API (created with kubernetes.io/config.mirror and the
//     Node as owner, replaced when it shows another version or is being deleted, status
//     written to it); a mirror pod no static pod stands behind is deleted.
//   - At each relist after the first list of the API's pods, pod directories and pod cgroups
//     that no pod and no sandbox owns are removed (upstream's cleanupOrphanedPodDirs and
//     cleanupOrphanedPodCgroups; a cgroup's processes are killed first).
//   - The QoS-tier cgroups (qos_cgroups.h) follow the node's active pods: each relist, and
//     before a new pod is first synced. So do the /var/log/containers links
//     (logs/container_log_links.h), at each relist.
//   Events go through the shared event recorder with upstream's reasons.
//
// Threads: start() starts the informer, the workers and the relist loop; stop() ends them.
// sync() and relist_once() may be called directly by tests.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/queue_workers.h"
#include "client/work_queue.h"
#include "roles/kubelet/logs/container_log_links.h"
#include "roles/kubelet/pods/pod_sync.h"
#include "roles/kubelet/pods/qos_cgroups.h"
#include "roles/kubelet/pods/static_pods.h"

namespace k3c::kubelet {

struct PodManagerConfig {
  std::string node_name;
  NodeFacts node;  // node.name is the node_name
  DnsSettings dns;
  std::string log_root = "/var/log/pods";
  std::string seccomp_root = "/var/lib/kubelet/seccomp";  // Localhost seccomp profiles
  PodCgroupSettings cgroups;  // pods go under <cgroups.root>/kubepods/...
  // At most this many pods are synced at once: a worker is busy for the whole grace period of
  // a pod it stops. Upstream's kubelet has a goroutine per pod; by default as many as the
  // node's pods capacity.
  int workers = 110;
  std::chrono::milliseconds relist_period{1000};
  std::string static_pod_dir;  // "" = no static pods
  std::chrono::milliseconds file_check_frequency{20'000};
  // The parsed objects the process's informers share (null: the kubelet's own).
  std::shared_ptr<client::SharedObjects> shared_objects;
};

class PodManager {
 public:
  PodManager(client::Client& client, runtime::RuntimeService& runtime,
             runtime::ImageService& images, client::EventRecorder& events, const Clock& clock,
             PodManagerConfig config);
  ~PodManager();
  PodManager(const PodManager&) = delete;
  PodManager& operator=(const PodManager&) = delete;

  // Before start(): how containers get their volume mounts (none when unset).
  void set_mount_resolver(MountResolver mounts) { mounts_ = std::move(mounts); }
  // Before start(): called with a pod's uid once its sandbox is removed for a pod that is
  // gone (the volume manager's teardown).
  void set_pod_cleanup(std::function<void(const std::string& uid)> cleanup) {
    cleanup_ = std::move(cleanup);
  }
  // Before start(): the uids that have a pod directory (the volume manager's). At each
  // relist, one that neither a pod of the node nor a sandbox owns any more (left when k3c
  // stopped between removing a sandbox and its cleanup) gets the cleanup above, as
  // upstream's cleanupOrphanedPodDirs.
  void set_pod_dirs(std::function<std::vector<std::string>()> list) { pod_dirs_ = std::move(list); }
  // Before start(): called with the pod at the start of each of its syncs (the volume
  // manager's refresh of configMap and secret files).
  void set_pod_refresh(std::function<void(const nlohmann::json& pod)> refresh) {
    refresh_ = std::move(refresh);
  }
  // Before start(): asked once for a pod the kubelet has not started yet (its status has no
  // startTime); a message rejects it, as upstream's pod admission: the pod is Failed with
  // reason Evicted and "Pod was rejected: <message>", and a Warning event "Evicted".
  void set_admission(std::function<std::optional<std::string>(const nlohmann::json& pod)> admit) {
    admit_ = std::move(admit);
  }
  // The ConfigMaps and Secrets as the pod sync reads them (from the API).
  ConfigSource& objects();

  void start();
  void stop();
  bool wait_synced(std::chrono::nanoseconds timeout) const {
    return informer_.wait_synced(timeout) && services_.wait_synced(timeout);
  }

  // The pod as this kubelet's informer has it (null when it does not run it), and all of
  // them: what the kubelet API answers from.
  client::ObjectPtr pod(const std::string& ns, const std::string& name) const {
    return informer_.get(ns + "/" + name);
  }
  std::vector<client::ObjectPtr> pods() const { return informer_.list(); }

  // Evicts the pod (the eviction manager's kill, eviction/eviction_manager.h): records the
  // Warning event "Evicted" and queues the pod; its syncs from then on report it Failed with
  // reason Evicted and `message` (with `disruption_condition`, also the DisruptionTarget
  // condition, reason TerminationByKubelet) and stop it with `grace_period_seconds`.
  // Thread-safe. The mark is kept in the worker's path (not written from here) so that a
  // sync already running cannot write an older status over it.
  void evict(const nlohmann::json& pod, const std::string& message, bool disruption_condition,
             int64_t grace_period_seconds);
  struct EvictionMark {
    std::string message;
    bool disruption_condition = false;
    int64_t grace_period_seconds = 0;
    std::string at;  // RFC 3339: the condition's lastTransitionTime
  };

  // One sync of the pod under `key`; what a worker does.
  Status sync(const std::string& key);
  // One relist: queue changed pods, remove sandboxes no pod owns.
  void relist_once();
  // Upstream's PLEG health: once the runtime has not been listed for 3 minutes, "PLEG is not
  // healthy: pleg was last seen active 3m5s ago; threshold is 3m0s" (the node goes NotReady);
  // "" while healthy. Thread-safe.
  std::string health_problem() const;
  // One rescan of the static pod manifests: queue the pods that changed.
  void scan_static_pods();

 private:
  class Objects;
  class Events;
  void process(const std::string& key);
  void relist_loop();
  Result<std::vector<nlohmann::json>> list_services(bool static_pod) const;
  // The summed CPU requests of the Burstable pods this node runs that are not terminal: API
  // pods (not mirrors) and static pods. Reads the cached pods in place.
  int64_t burstable_cpu_requests();
  // Before a pod's first sync: a Burstable pod's tier is sized with it before its cgroup is made.
  void size_qos_for(const nlohmann::json& pod);
  // The pod cgroups (<root>/kubepods[/tier]/pod<uid>) by pod uid. The runtime removes a
  // pod's cgroup with its sandbox; a k3c stopped in between leaves it, and the relist
  // removes those no pod and no sandbox owns.
  std::map<std::string, std::string> pod_cgroups();
  // The QoS tiers for the pods known now (only grown while the API's are not listed yet).
  void resize_qos();
  SyncContext sync_context(bool static_pod);
  // Writes `status` through pods/status when it differs from what `pod` shows (a static
  // pod's status goes to its mirror this way); remembered under `pod`'s uid.
  Status write_status(const nlohmann::json& pod, const nlohmann::json& status);
  Status delete_pod(const nlohmann::json& pod);
  Status sync_static(const std::string& key, nlohmann::json pod);
  // Creates, replaces or deletes the mirror pod of `key`; the mirror as it is (null: none).
  Result<client::ObjectPtr> sync_mirror(const std::string& key);

  client::Client& client_;
  runtime::RuntimeService& runtime_;
  runtime::ImageService& images_;
  const Clock& clock_;
  const PodManagerConfig config_;
  std::unique_ptr<Objects> objects_;
  std::unique_ptr<Events> events_;
  std::unique_ptr<ProbeNetwork> network_;
  Backoff crash_backoff_, pull_backoff_;
  ProbeTracker probes_;
  MountResolver mounts_;
  std::function<void(const std::string& uid)> cleanup_;
  std::function<std::vector<std::string>()> pod_dirs_;
  std::function<void(const nlohmann::json& pod)> refresh_;
  std::function<std::optional<std::string>(const nlohmann::json& pod)> admit_;
  // True for a pod rejected now by admit_ (its Failed status written) or before; false when
  // admitted.
  Result<bool> rejected(const nlohmann::json& pod);
  client::Informer informer_;
  client::Informer services_;  // every Service, for the Service environment variables
  client::WorkQueue queue_;
  client::QueueWorkers workers_;
  std::unique_ptr<StaticPodSource> static_;  // null without a manifest directory
  QosCgroups qos_;
  ContainerLogLinks log_links_;  // the relist loop's

  std::mutex mu_;
  std::map<std::string, nlohmann::json> written_;        // pod uid -> status last written
  std::map<std::string, std::string> fingerprints_;      // pod uid -> runtime state seen
  std::map<std::string, nlohmann::json> static_status_;  // static pod uid -> its status
  std::map<std::string, EvictionMark> evictions_;        // evicted pod uid -> its eviction

  std::atomic<int64_t> last_relist_ns_{0};  // clock_ time of the last complete relist
  std::atomic<bool> relisted_{false};       // one has completed

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // guarded by stop_mu_
  std::thread relist_;
};

}  // namespace k3c::kubelet

// The kubelet role: the node agent of `k3c server` (and later `k3c agent`). So far it
// registers this machine as a Node, keeps the node's status current and renews its Lease
// (node_reporter.h); with a runtime it runs the pods bound to the node (pods/pod_manager.h)
// and serves the kubelet API in-process to the API server (server/kubelet_api.h) and, with
// a tls_dir, over HTTPS on settings.port (server/kubelet_server.h) (doc/kubelet.md). It talks to
// the apiserver through the in-process client as system:node:<name> (`k3c server`) or
// through the HTTPS client its config makes (`k3c agent`).
//
// Threads: start()/stop() from the RoleRunner. One node thread runs registration, the status
// loop and the Lease; one event writer; with a runtime, the pod manager's and one
// housekeeping thread (image garbage collection, images/image_gc.h; log rotation,
// logs/log_rotation.h; node-pressure eviction, eviction/eviction_manager.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "client/shared_objects.h"
#include "core/clock.h"
#include "core/lifecycle.h"
#include "http/http.h"
#include "http/local_endpoints.h"
#include "roles/kubelet/kubelet_settings.h"
#include "roles/kubelet/machine_probe.h"
#include "roles/kubelet/node_status.h"
#include "runtime/runtime_service.h"

namespace k3c::client {
class Client;
class EventRecorder;
}  // namespace k3c::client

namespace k3c::kubelet {

class NodeReporter;
class PodManager;
class ImageGarbageCollector;
class LogRotator;
class EvictionManager;
class EvictionStatsSource;
namespace volumes {
class VolumeManager;
}
class KubeletApi;
class KubeletServer;
class StatsCollector;

struct KubeletConfig {
  // The apiserver's handler chain, available once the apiserver role is up.
  http::Handler handler;
  // Or (`k3c agent`): makes the client the kubelet talks to the apiserver through (HTTPS, with
  // the node's client certificate); when set, `handler` is not used.
  std::function<Result<std::unique_ptr<client::Client>>()> client;
  std::string node_name;  // "" = the host name, lower-cased
  std::vector<std::string> node_ips;
  std::vector<std::pair<std::string, std::string>> node_labels;
  std::vector<Taint> node_taints;
  std::string data_dir;
  std::string cluster_dns;     // the DNS Service's IP, for the pods' resolv.conf
  std::string cluster_domain;  // "cluster.local"
  bool control_plane = false;  // a server's node: the role labels
  // The cluster PKI (<data-dir>/server/tls): with it the kubelet API is served over HTTPS on
  // settings.address:settings.port (and that port is the node's daemonEndpoints); "": not.
  std::string tls_dir;
  // Or (an agent) the serving certificate, its key and the client CA as files.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string client_ca_file;
  // Where the kubelet API is registered under the node name for the API server of this
  // process (pods/log and friends); may be null.
  std::shared_ptr<http::LocalEndpoints> endpoints;
  std::string host_resolv_conf = "/etc/resolv.conf";
  std::string host_hosts = "/etc/hosts";
  // The runtime, asked for at start (the runtime role starts first, as the apiserver's store
  // is handed over). Unset or returning null: no runtime (the node reports no images).
  std::function<runtime::RuntimeService*()> runtime;
  std::function<runtime::ImageService*()> images;
  KubeletSettings settings;
  // The parsed objects the process's informers share (null: the kubelet's own).
  std::shared_ptr<client::SharedObjects> shared_objects;
};

class KubeletRole final : public Role {
 public:
  // `probe` null: the Linux probe of config.data_dir.
  explicit KubeletRole(KubeletConfig config, const Clock& clock = SystemClock::instance(),
                       std::unique_ptr<MachineProbe> probe = nullptr);
  ~KubeletRole() override;

  std::string_view name() const override { return "kubelet"; }
  Status start() override;
  void stop() override;
  bool ready() const override { return ready_; }

 private:
  void run_node_loop();
  // Image garbage collection every 5 min, log rotation and the eviction manager's pass
  // every 10 s, as upstream.
  void run_housekeeping_loop();
  // With pods_: the image collector, the log rotator, the eviction manager and the
  // housekeeping thread that runs them.
  void start_housekeeping(const std::vector<Threshold>& thresholds);
  // Waits `d` or until stop(); false once stopping.
  bool sleep_for(std::chrono::nanoseconds d);

  const KubeletConfig config_;
  const Clock& clock_;
  std::unique_ptr<MachineProbe> probe_;
  runtime::RuntimeService* runtime_ = nullptr;  // from config_.runtime at start; may be null
  runtime::ImageService* images_ = nullptr;     // from config_.images at start; may be null
  std::unique_ptr<client::Client> client_;
  std::unique_ptr<client::EventRecorder> events_;
  std::unique_ptr<NodeReporter> reporter_;
  // Null without a runtime; shared with the kubelet API lookups (a request in flight may
  // outlive stop()).
  std::shared_ptr<PodManager> pods_;
  std::unique_ptr<volumes::VolumeManager> volumes_;  // with pods_
  std::unique_ptr<ImageGarbageCollector> image_gc_;  // with pods_; null when switched off
  std::unique_ptr<LogRotator> log_rotator_;          // with pods_
  std::unique_ptr<EvictionStatsSource> eviction_stats_;  // with pods_
  std::unique_ptr<EvictionManager> eviction_;            // with pods_
  std::thread housekeeping_thread_;                  // runs both, with pods_
  std::shared_ptr<KubeletApi> api_;  // registered in config_.endpoints while running
  std::shared_ptr<StatsCollector> stats_;  // with a runtime; shared with api_'s requests
  std::unique_ptr<KubeletServer> https_;   // with config_.tls_dir
  // Builds api_ and serves it (in-process, HTTPS); the bound HTTPS port, else settings.port.
  Result<uint16_t> serve_api();
  std::string node_name_;
  std::mutex mu_;  // guards stopping_ for the node thread's waits
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread node_thread_;
  std::atomic<bool> ready_{false};
};

}  // namespace k3c::kubelet

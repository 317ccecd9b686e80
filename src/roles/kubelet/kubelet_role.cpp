// The kubelet role (see kubelet_role.h): its start, the node thread and its timers, stop.
#include "roles/kubelet/kubelet_role.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "client/event_recorder.h"
#include "client/in_process_client.h"
#include "core/log.h"
#include "core/names.h"
#include "core/version.h"
#include "roles/kubelet/eviction/eviction_manager.h"
#include "roles/kubelet/eviction/eviction_stats.h"
#include "roles/kubelet/images/image_gc.h"
#include "roles/kubelet/logs/log_rotation.h"
#include "roles/kubelet/node_reporter.h"
#include "roles/kubelet/pods/pod_manager.h"
#include "roles/kubelet/server/kubelet_api.h"
#include "roles/kubelet/server/kubelet_server.h"
#include "roles/kubelet/server/stats_collector.h"
#include "roles/kubelet/volumes/volume_manager.h"

namespace k3c::kubelet {
namespace {

// How long a failed registration waits before the next try (upstream backs off to 7 s).
constexpr std::chrono::seconds kRegisterRetry{7};
// How long a failed Lease renewal waits (upstream retries well within the lease's duration).
constexpr std::chrono::seconds kLeaseRetry{2};

// "k3c://0.1.0", as "containerd://1.7.x" reads.
std::string runtime_version() {
  std::string v = version::kVersion;
  if (v.starts_with('v')) v.erase(0, 1);
  return "k3c://" + v;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the pod side needs to know about this node, from the status the node would report.
NodeFacts node_facts(const NodeIdentity& id, const MachineInfo& machine) {
  NodeFacts facts;
  facts.name = id.name;
  nlohmann::json status = node_status(id, machine, {}, nlohmann::json::object(), "");
  for (const auto& address : status["addresses"])
    if (address.value("type", "") == "InternalIP") facts.host_ips.push_back(address["address"]);
  for (const auto& [resource, quantity] : status["allocatable"].items())
    if (quantity.is_string()) facts.allocatable[resource] = quantity.get<std::string>();
  return facts;
}

}  // namespace

KubeletRole::KubeletRole(KubeletConfig config, const Clock& clock,
                         std::unique_ptr<MachineProbe> probe)
    : config_(std::move(config)), clock_(clock), probe_(std::move(probe)) {
  if (!probe_) probe_ = std::make_unique<LinuxMachineProbe>(config_.data_dir);
}

KubeletRole::~KubeletRole() { stop(); }

Status KubeletRole::start() {
  // Checked by the CLI too; a config built elsewhere (tests) gets the same message.
  auto thresholds = eviction_thresholds(config_.settings.eviction);
  if (!thresholds.is_ok()) return thresholds.status();
  NodeIdentity id;
  id.name = node_name_for(config_.node_name, probe_->probe().hostname);
  // A host name that is no valid node name would fail every registration; say so at start.
  if (Status valid = names::validate_dns1123_subdomain(id.name); !valid.is_ok()) {
    return error(Code::kInvalid, "node name \"" + id.name + "\" (" +
                                     (config_.node_name.empty() ? "the host name" : "--node-name") +
                                     ") is not valid: " + valid.message() + "; pass --node-name");
  }
  id.node_ips = config_.node_ips;
  id.labels = config_.node_labels;
  id.taints = config_.node_taints;
  id.control_plane = config_.control_plane;
  id.kubelet_version = version::kKubernetesGitVersion;
  id.runtime_version = runtime_version();
  id.max_pods = config_.settings.max_pods;
  id.eviction_memory.reset();
  id.eviction_nodefs.reset();
  for (const Threshold& t : *thresholds) {
    if (!t.hard()) continue;
    if (t.signal == Signal::kMemoryAvailable) id.eviction_memory = t.value;
    if (t.signal == Signal::kNodeFsAvailable) id.eviction_nodefs = t.value;
  }
  // Until RBAC and the node authorizer exist the node's identity carries system:masters
  // (upstream's kubelets are system:node:<name> in system:nodes, limited to their own node).
  http::PeerIdentity identity;
  identity.user = "system:node:" + id.name;
  identity.groups = {"system:nodes", "system:masters", "system:authenticated"};
  if (config_.client) {
    ASSIGN_OR_RETURN(client_, config_.client());
  } else {
    client_ = std::make_unique<client::InProcessClient>(config_.handler, identity);
  }
  events_ = std::make_unique<client::EventRecorder>(*client_, "kubelet", clock_);
  runtime_ = config_.runtime ? config_.runtime() : nullptr;
  images_ = config_.images ? config_.images() : nullptr;
  node_name_ = id.name;
  if (runtime_ != nullptr && images_ != nullptr) {
    PodManagerConfig pods;
    pods.node_name = id.name;
    pods.shared_objects = config_.shared_objects;
    pods.node = node_facts(id, probe_->probe());
    pods.dns.cluster = {{config_.cluster_dns}, config_.cluster_domain};
    if (config_.cluster_dns.empty()) pods.dns.cluster.servers.clear();
    pods.dns.host_resolv = parse_resolv_conf(read_text(config_.host_resolv_conf));
    pods.dns.host_hosts = read_text(config_.host_hosts);
    pods.log_root = config_.settings.pod_logs_dir;
    pods.seccomp_root = config_.settings.root_dir + "/seccomp";
    pods.cgroups = {config_.settings.cgroup_root, config_.settings.pod_max_pids};
    pods.workers = config_.settings.max_pods;
    pods.static_pod_dir = config_.settings.pod_manifest_path;
    if (pods.static_pod_dir.empty()) {
      // As k3s: <data-dir>/agent/pod-manifests, made when missing.
      pods.static_pod_dir = config_.data_dir + "/agent/pod-manifests";
      std::error_code ignored;  // a directory that cannot be made holds no pods
      std::filesystem::create_directories(pods.static_pod_dir, ignored);
    }
    pods.file_check_frequency = config_.settings.file_check_frequency;
    pods_ = std::make_shared<PodManager>(*client_, *runtime_, *images_, *events_, clock_,
                                         std::move(pods));
    volumes_ = std::make_unique<volumes::VolumeManager>(config_.data_dir + "/agent", *client_,
                                                        pods_->objects(), *events_,
                                                        node_facts(id, probe_->probe()));
    pods_->set_mount_resolver(volumes_->resolver());
    volumes::VolumeManager* volumes = volumes_.get();
    pods_->set_pod_cleanup([volumes](const std::string& uid) { volumes->remove_pod(uid); });
    pods_->set_pod_dirs([volumes] { return volumes->pod_uids(); });
    pods_->set_pod_refresh([volumes](const nlohmann::json& pod) { volumes->refresh(pod); });
  }
  // Before the reporter: the node's daemonEndpoints carry the bound port.
  auto port = serve_api();
  if (!port.is_ok()) {
    pods_.reset();
    volumes_.reset();
    return port.status();
  }
  id.port = *port;
  reporter_ = std::make_unique<NodeReporter>(*client_, std::move(id), *probe_, images_,
                                             events_.get(), config_.settings, clock_);
  {
    std::lock_guard lock(mu_);
    stopping_ = false;
  }
  // The housekeeping parts exist before the node thread asks for the pressure conditions.
  if (pods_) start_housekeeping(*thresholds);
  node_thread_ = std::thread([this] { run_node_loop(); });
  if (pods_) pods_->start();
  ready_ = true;
  return Status::ok();
}

void KubeletRole::start_housekeeping(const std::vector<Threshold>& thresholds) {
  ImageGcPolicy policy{config_.settings.image_gc_high_threshold_percent,
                       config_.settings.image_gc_low_threshold_percent,
                       config_.settings.image_minimum_gc_age};
  NodeReporter* reporter = reporter_.get();
  // 100 switches collection off (as upstream's high threshold of 100 does).
  if (policy.high_threshold_percent < 100) {
    image_gc_ = std::make_unique<ImageGarbageCollector>(
        *images_, *runtime_, statvfs_probe(config_.data_dir + "/agent"),
        [reporter](const std::string& reason, const std::string& message) {
          reporter->record_event(reason, message, "Warning");
        },
        clock_, policy);
  }
  log_rotator_ =
      std::make_unique<LogRotator>(*runtime_, clock_,
                                   LogRotationPolicy{config_.settings.container_log_max_size_bytes,
                                                     config_.settings.container_log_max_files});
  eviction_stats_ = std::make_unique<LinuxEvictionStats>(*runtime_, config_.data_dir + "/agent");
  EvictionHooks hooks;
  PodManager* pods = pods_.get();
  hooks.pods = [pods] {
    std::vector<nlohmann::json> all;
    for (const client::ObjectPtr& pod : pods->pods()) all.push_back(*pod);
    return all;
  };
  hooks.evict = [pods](const Eviction& e) {
    pods->evict(e.pod, e.message, e.disruption_condition, e.grace_period_seconds);
  };
  if (ImageGarbageCollector* gc = image_gc_.get()) {
    hooks.reclaim_disk = [gc] {
      auto removed = gc->delete_unused();
      if (!removed.is_ok())
        log::for_role("kubelet")->warn("eviction manager: deleting unused images: {}",
                                       removed.status().message());
    };
  }
  hooks.warn = [reporter](const std::string& reason, const std::string& message) {
    reporter->record_event(reason, message, "Warning");
  };
  eviction_ = std::make_unique<EvictionManager>(
      EvictionManagerConfig{thresholds, config_.settings.eviction.pressure_transition_period,
                            config_.settings.eviction.max_pod_grace_period_seconds},
      *eviction_stats_, std::move(hooks), clock_);
  EvictionManager* eviction = eviction_.get();
  reporter_->set_pressure_source([eviction, pods] {
    NodePressure p = eviction->pressure();
    p.not_ready = pods->health_problem();
    return p;
  });
  pods_->set_admission([eviction](const nlohmann::json& pod) { return eviction->admit(pod); });
  housekeeping_thread_ = std::thread([this] { run_housekeeping_loop(); });
}

Result<uint16_t> KubeletRole::serve_api() {
  KubeletApiSources sources;
  sources.runtime = runtime_;
  std::shared_ptr<PodManager> pods = pods_;
  sources.find_pod = [pods](const std::string& ns,
                            const std::string& name) -> std::optional<nlohmann::json> {
    if (pods == nullptr) return std::nullopt;
    client::ObjectPtr pod = pods->pod(ns, name);
    if (!pod) return std::nullopt;
    return *pod;
  };
  sources.pods = [pods] {
    std::vector<nlohmann::json> all;
    if (pods != nullptr)
      for (const client::ObjectPtr& pod : pods->pods()) all.push_back(*pod);
    return all;
  };
  if (runtime_ != nullptr) {
    stats_ = std::make_shared<StatsCollector>(node_name_, *runtime_);
    sources.stats = [stats = stats_] { return stats->collect(); };
  }
  api_ = std::make_shared<KubeletApi>(std::move(sources));
  std::weak_ptr<KubeletApi> api = api_;
  http::Handler handler = [api](http::Request& request) {
    if (auto live = api.lock()) return live->handle(request);
    http::Response gone;
    gone.status = 503;
    gone.body = "the kubelet is stopping\n";
    return gone;
  };
  if (config_.endpoints) config_.endpoints->add(node_name_, handler);
  const int port = config_.settings.port;
  if (config_.tls_dir.empty() && config_.tls_cert_file.empty()) return static_cast<uint16_t>(port);
  KubeletServerOptions options;
  options.address = config_.settings.address;
  options.port = static_cast<uint16_t>(port);
  options.node_name = node_name_;
  options.node_ips = config_.node_ips;
  options.tls_dir = config_.tls_dir;
  options.cert_file = config_.tls_cert_file;
  options.key_file = config_.tls_key_file;
  options.client_ca_file = config_.client_ca_file;
  auto server = KubeletServer::start(options, handler);
  if (!server.is_ok()) {
    if (config_.endpoints) config_.endpoints->remove(node_name_);
    api_.reset();
    return server.status();
  }
  https_ = std::move(*server);
  log::for_role("kubelet")->info("serving the kubelet API on https://{}:{}", options.address,
                                 https_->port());
  return https_->port();
}

bool KubeletRole::sleep_for(std::chrono::nanoseconds d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, std::max(d, std::chrono::nanoseconds(0)), [&] { return stopping_; });
  return !stopping_;
}

void KubeletRole::run_node_loop() {
  auto logger = log::for_role("kubelet");
  const auto update_every = config_.settings.node_status_update_frequency;
  // Upstream renews the node lease every quarter of its duration.
  const auto renew_every =
      std::chrono::milliseconds(config_.settings.node_lease_duration_seconds * 1000 / 4);
  reporter_->record_event("Starting", "Starting kubelet.");
  bool registered = false;
  Clock::TimePoint next_status = clock_.now();
  Clock::TimePoint next_lease = clock_.now();
  do {
    if (!registered) {
      Status status = reporter_->register_node();
      if (!status.is_ok()) {
        logger->warn("registering node {}: {}", reporter_->node_name(), status.message());
        continue;  // after the retry wait below
      }
      registered = true;
    }
    const Clock::TimePoint now = clock_.now();
    if (now >= next_status) {
      Status status = reporter_->sync_status();
      if (status.code() == Code::kNotFound) {
        logger->warn("node {} is gone; registering it again", reporter_->node_name());
        registered = false;
        continue;
      }
      if (!status.is_ok()) logger->warn("node status: {}", status.message());
      next_status = now + update_every;
    }
    if (now >= next_lease) {
      Status status = reporter_->renew_lease();
      if (!status.is_ok()) logger->warn("node lease: {}", status.message());
      next_lease = now + (status.is_ok() ? renew_every : std::chrono::milliseconds(kLeaseRetry));
    }
  } while (sleep_for(registered ? std::min(next_status, next_lease) - clock_.now()
                                : std::chrono::nanoseconds(kRegisterRetry)));
}

void KubeletRole::run_housekeeping_loop() {
  constexpr std::chrono::minutes kImageGcPeriod{5};
  constexpr std::chrono::seconds kLogRotationPeriod{10};
  constexpr std::chrono::seconds kEvictionPeriod{10};  // upstream's evictionMonitoringPeriod
  // The first image collection after one period, as upstream's loop starts.
  Clock::TimePoint next_gc = clock_.now() + kImageGcPeriod;
  Clock::TimePoint next_rotation = clock_.now() + kLogRotationPeriod;
  Clock::TimePoint next_eviction = clock_.now() + kEvictionPeriod;
  while (sleep_for(std::min({next_gc, next_rotation, next_eviction}) - clock_.now())) {
    const Clock::TimePoint now = clock_.now();
    if (now >= next_eviction) {
      eviction_->synchronize();
      next_eviction = now + kEvictionPeriod;
    }
    if (now >= next_rotation) {
      log_rotator_->rotate_once();
      next_rotation = now + kLogRotationPeriod;
    }
    if (now >= next_gc) {
      if (image_gc_) image_gc_->run_periodic();
      next_gc = now + kImageGcPeriod;
    }
  }
}

void KubeletRole::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (node_thread_.joinable()) node_thread_.join();
  if (config_.endpoints && !node_name_.empty()) config_.endpoints->remove(node_name_);
  if (https_) https_->stop();
  https_.reset();
  if (api_) api_->stop();  // exec and port-forward sessions end before the runtime is let go
  api_.reset();
  stats_.reset();
  // Containers outlive k3c: a worker waiting out a grace period must not hold up the stop.
  if (runtime_) runtime_->cancel_waits();
  if (housekeeping_thread_.joinable()) housekeeping_thread_.join();
  eviction_.reset();
  eviction_stats_.reset();
  image_gc_.reset();
  log_rotator_.reset();
  if (pods_) pods_->stop();
  pods_.reset();
  volumes_.reset();
  if (events_) events_->stop();
  reporter_.reset();
  events_.reset();
  client_.reset();
  ready_ = false;
}

}  // namespace k3c::kubelet

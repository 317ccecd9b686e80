// The pod manager (see pod_manager.h).
#include "roles/kubelet/pods/pod_manager.h"

#include <filesystem>
#include <set>

#include "api/json_fields.h"
#include "api/pod_qos.h"
#include "api/quantity.h"
#include "core/ids.h"
#include "core/log.h"
#include "roles/kubelet/pods/labels.h"
#include "roles/kubelet/pods/pod_api_writes.h"

namespace k3c::kubelet {

using nlohmann::json;
namespace resources = client::resources;

// ConfigMaps and Secrets read from the API when a container starts.
class PodManager::Objects final : public ConfigSource {
 public:
  explicit Objects(client::Client& client) : client_(client) {}
  Result<json> config_map(const std::string& ns, const std::string& name) override {
    return client::get(client_, resources::kConfigMaps, ns, name);
  }
  Result<json> secret(const std::string& ns, const std::string& name) override {
    return client::get(client_, resources::kSecrets, ns, name);
  }

 private:
  client::Client& client_;
};

// Pod events into the shared recorder.
class PodManager::Events final : public PodEvents {
 public:
  explicit Events(client::EventRecorder& recorder) : recorder_(recorder) {}
  void record(const json& pod, const std::string& field_path, const std::string& type,
              const std::string& reason, const std::string& message) override {
    json object = pod;
    object["apiVersion"] = "v1";
    object["kind"] = "Pod";
    recorder_.record(object, type, reason, message, "kubelet", field_path);
  }

 private:
  client::EventRecorder& recorder_;
};

namespace {

std::string manager_meta(const json& pod, const char* field) {
  return pod.value("metadata", json::object()).value(field, "");
}

bool on_node(const json& pod, const std::string& node) {
  return pod.value("spec", json::object()).value("nodeName", "") == node;
}

// Upstream's eviction status: phase Failed, reason Evicted, the message, and for a
// node-pressure eviction the DisruptionTarget condition.
void mark_evicted(json& status, const PodManager::EvictionMark& eviction) {
  if (!status.is_object()) status = json::object();
  status["phase"] = "Failed";
  status["reason"] = "Evicted";
  status["message"] = eviction.message;
  if (!eviction.disruption_condition) return;
  json conditions = json::array();
  for (const json& c : status.value("conditions", json::array()))
    if (c.value("type", "") != "DisruptionTarget") conditions.push_back(c);
  conditions.push_back({{"type", "DisruptionTarget"},
                        {"status", "True"},
                        {"lastTransitionTime", eviction.at},
                        {"reason", "TerminationByKubelet"},
                        {"message", eviction.message}});
  status["conditions"] = std::move(conditions);
}

bool terminal(const json& pod) {
  const std::string phase = api::text(api::member(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

int64_t allocatable_cpu_milli(const NodeFacts& node) {
  auto it = node.allocatable.find("cpu");
  if (it == node.allocatable.end()) return 0;
  auto q = api::Quantity::parse(it->second);
  return q ? q->milli_value() : 0;
}

client::ListOptions node_selector(const std::string& node) {
  client::ListOptions options;
  options.field_selector = "spec.nodeName=" + node;
  return options;
}

}  // namespace

PodManager::PodManager(client::Client& client, runtime::RuntimeService& runtime,
                       runtime::ImageService& images, client::EventRecorder& events,
                       const Clock& clock, PodManagerConfig config)
    : client_(client),
      runtime_(runtime),
      images_(images),
      clock_(clock),
      config_(std::move(config)),
      objects_(std::make_unique<Objects>(client)),
      events_(std::make_unique<Events>(events)),
      network_(std::make_unique<SocketProbeNetwork>()),
      crash_backoff_(clock),
      pull_backoff_(clock),
      probes_(clock, runtime, *network_),
      informer_(client, resources::kPods, node_selector(config_.node_name), config_.shared_objects),
      services_(client, resources::kServices, {}, config_.shared_objects),
      queue_(clock),
      workers_("kubelet-pods", queue_, [this](const std::string& key) { process(key); }),
      qos_(runtime, config_.cgroups.root, allocatable_cpu_milli(config_.node)),
      log_links_(config_.log_root) {
  auto enqueue = [this](const client::ObjectPtr& pod) {
    if (pod && on_node(*pod, config_.node_name)) queue_.add(client::key_of(*pod));
  };
  informer_.add_handler({.on_add = enqueue,
                         .on_update = [enqueue](const client::ObjectPtr&,
                                                const client::ObjectPtr& now) { enqueue(now); },
                         .on_delete = enqueue});
  if (!config_.static_pod_dir.empty()) {
    static_ = std::make_unique<StaticPodSource>(config_.static_pod_dir, config_.node_name, clock_);
  }
}

PodManager::~PodManager() { stop(); }

void PodManager::start() {
  services_.start();
  informer_.start();
  relist_ = std::thread([this] { relist_loop(); });
}

void PodManager::stop() {
  {
    std::lock_guard lock(stop_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  queue_.shut_down();
  if (relist_.joinable()) relist_.join();  // it starts the workers: none start after this
  workers_.stop();
  informer_.stop();
  services_.stop();
}

void PodManager::process(const std::string& key) {
  Status s = sync(key);
  if (!s.is_ok()) {
    log::for_role("kubelet")->warn("sync of pod {} failed: {}", key, s.to_string());
    queue_.add_rate_limited(key);
  } else {
    queue_.forget(key);
  }
  queue_.done(key);
}

void PodManager::relist_loop() {
  // Static pods need no API server, as upstream's: they are read, run and relisted from the
  // start; what depends on the API's pods waits for the first list (relist_once).
  workers_.run(config_.workers);
  std::unique_lock lock(stop_mu_);
  std::optional<Clock::TimePoint> next_scan;
  while (!stopping_) {
    lock.unlock();
    if (static_ && (!next_scan || clock_.now() >= *next_scan)) {
      scan_static_pods();
      next_scan = clock_.now() + config_.file_check_frequency;
    }
    relist_once();
    lock.lock();
    stop_cv_.wait_for(lock, config_.relist_period, [this] { return stopping_; });
  }
}

void PodManager::relist_once() {
  // What may be left over is listed before the sandboxes and the pods: a pod directory or
  // cgroup made after this belongs to a pod the informer already had, or to a sandbox listed
  // below, never to one the removal below would miss.
  const std::map<std::string, std::string> cgroups = pod_cgroups();
  const std::vector<std::string> dirs = pod_dirs_ ? pod_dirs_() : std::vector<std::string>{};
  auto sandboxes = runtime_.list_pod_sandboxes();
  auto containers = runtime_.list_containers();
  if (!sandboxes.is_ok() || !containers.is_ok()) return;
  last_relist_ns_ = clock_.now().time_since_epoch().count();
  relisted_ = true;
  // Before the API's pods were listed once (no API server yet) only static pods are known.
  const bool api_listed = informer_.has_synced();
  std::map<std::string, std::string> uid_to_key;
  for (const auto& pod : informer_.list()) {
    if (on_node(*pod, config_.node_name))
      uid_to_key[manager_meta(*pod, "uid")] = client::key_of(*pod);
  }
  if (static_) uid_to_key.merge(static_->uids());
  // What the runtime shows of each pod; a change (a container exited) queues it.
  std::map<std::string, std::string> seen;
  for (const auto& s : *sandboxes) {
    seen[s.config.pod_uid] += s.id + (s.state == runtime::SandboxState::kReady ? "+;" : "-;");
  }
  for (const auto& c : *containers) {
    auto uid = c.labels.find(labels::kPodUid);
    if (uid == c.labels.end()) continue;
    seen[uid->second] += c.id + ":" + std::to_string(static_cast<int>(c.state)) + ";";
  }
  std::vector<std::string> changed;
  {
    std::lock_guard lock(mu_);
    for (const auto& [uid, print] : seen) {
      auto& old = fingerprints_[uid];
      if (old != print) changed.push_back(uid);
      old = print;
    }
    std::erase_if(fingerprints_, [&](const auto& kv) { return !seen.count(kv.first); });
  }
  for (const auto& uid : changed) {
    if (auto it = uid_to_key.find(uid); it != uid_to_key.end()) queue_.add(it->second);
  }
  log_links_.sync(*containers);
  std::vector<std::string> live;
  for (const auto& c : *containers) live.push_back(c.id);
  probes_.retain(live);
  crash_backoff_.gc();
  pull_backoff_.gc();
  resize_qos();
  // A sandbox, directory or record no known pod owns may yet belong to a pod the API has
  // not listed: nothing is removed before that list.
  if (!api_listed) return;
  {
    std::lock_guard lock(mu_);
    std::erase_if(written_, [&](const auto& kv) { return !uid_to_key.count(kv.first); });
    std::erase_if(evictions_, [&](const auto& kv) { return !uid_to_key.count(kv.first); });
  }
  // Sandboxes of pods that are gone: stop and remove them (SIGKILL; the pod is gone, there
  // is no grace period left to honour).
  for (const auto& s : *sandboxes) {
    if (uid_to_key.count(s.config.pod_uid)) continue;
    if (s.state == runtime::SandboxState::kReady) (void)runtime_.stop_pod_sandbox(s.id);
    if (Status r = runtime_.remove_pod_sandbox(s.id); !r.is_ok()) {
      log::for_role("kubelet")->warn("removing sandbox {} of a deleted pod: {}", s.id,
                                     r.to_string());
      continue;
    }
    // The deleted pod's logs go with it, as upstream's kubelet removes them; only a directory
    // below the log root is ever removed.
    const std::string& logs = s.config.log_directory;
    if (!logs.empty() && logs.rfind(config_.log_root + "/", 0) == 0 &&
        logs.find("/../") == std::string::npos) {
      std::error_code ignored;
      std::filesystem::remove_all(logs, ignored);
    }
    if (cleanup_) cleanup_(s.config.pod_uid);
  }
  std::set<std::string> sandboxed;  // any state
  for (const auto& s : *sandboxes) sandboxed.insert(s.config.pod_uid);
  // Pod cgroups nothing owns any more, as upstream's cleanupOrphanedPodCgroups: what is
  // left in one is killed, then it is removed.
  for (const auto& [uid, path] : cgroups) {
    if (uid_to_key.count(uid) || sandboxed.count(uid)) continue;
    log::for_role("kubelet")->info("removing the cgroup {} of pod {}, which no pod owns", path,
                                   uid);
    if (Status s = runtime_.remove_cgroup(path); !s.is_ok())
      log::for_role("kubelet")->warn("removing the cgroup of pod {}: {}", uid, s.to_string());
  }
  // Pod directories nothing owns any more: no pod of the node, no sandbox (any state).
  if (cleanup_) {
    for (const std::string& uid : dirs) {
      if (uid_to_key.count(uid) || sandboxed.count(uid)) continue;
      log::for_role("kubelet")->info("removing the directory of pod {}, which no pod owns", uid);
      cleanup_(uid);
    }
  }
}

std::map<std::string, std::string> PodManager::pod_cgroups() {
  std::map<std::string, std::string> out;
  const std::string kubepods = cgroup_under(config_.cgroups.root, "kubepods");
  for (const std::string& tier : {kubepods, kubepods + "/burstable", kubepods + "/besteffort"}) {
    auto children = runtime_.list_cgroups(tier);
    if (!children.is_ok()) continue;  // listed again at the next relist
    for (const std::string& name : *children) {
      if (name.starts_with("pod")) out[name.substr(3)] = tier + "/" + name;  // else a tier
    }
  }
  return out;
}

std::string PodManager::health_problem() const {
  constexpr auto kThreshold = std::chrono::minutes(3);  // upstream's relistThreshold
  if (!relisted_) return "";  // not listed yet: the start-up is not a stall
  const int64_t last = last_relist_ns_;
  const auto since = clock_.now().time_since_epoch() - Clock::Duration(last);
  if (since <= kThreshold) return "";
  return "PLEG is not healthy: pleg was last seen active " +
         go_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(since)) +
         " ago; threshold is " + go_duration(kThreshold);
}

ConfigSource& PodManager::objects() { return *objects_; }

SyncContext PodManager::sync_context(bool static_pod) {
  return SyncContext{runtime_,
                     images_,
                     *objects_,
                     *events_,
                     clock_,
                     crash_backoff_,
                     pull_backoff_,
                     config_.node,
                     config_.dns,
                     config_.log_root,
                     config_.seccomp_root,
                     mounts_,
                     &probes_,
                     [this, static_pod] { return list_services(static_pod); },
                     config_.cgroups,
                     std::nullopt};
}

Status PodManager::sync(const std::string& key) {
  if (static_) {
    if (auto pod = static_->current(key)) return sync_static(key, std::move(*pod));
  }
  client::ObjectPtr cached = informer_.get(key);
  if (!cached || !on_node(*cached, config_.node_name)) return Status::ok();
  // A mirror pod without its static pod (the manifest went, or static pods are off): gone.
  if (!api::text(api::member(api::member(*cached, "metadata"), "annotations"),
                 kConfigMirrorAnnotation)
           .empty())
    return delete_pod(*cached);
  // Containers need the Service variables: no sync before the Services were listed once.
  if (!services_.has_synced()) {
    queue_.add_after(key, std::chrono::milliseconds(100));
    return Status::ok();
  }
  json pod = *cached;
  const std::string uid = manager_meta(pod, "uid");
  {
    // What this kubelet last wrote is fresher than a cache that has not seen it yet.
    std::lock_guard lock(mu_);
    if (auto it = written_.find(uid); it != written_.end()) pod["status"] = it->second;
  }
  ASSIGN_OR_RETURN(bool was_rejected, rejected(pod));
  if (was_rejected) {
    // Nothing of it ever ran: a deleted one goes from the API at once.
    if (api::member(pod, "metadata").contains("deletionTimestamp")) return delete_pod(pod);
    return Status::ok();
  }
  SyncContext ctx = sync_context(false);
  std::optional<EvictionMark> evicted;
  {
    std::lock_guard lock(mu_);
    if (auto it = evictions_.find(uid); it != evictions_.end()) evicted = it->second;
  }
  if (evicted) {
    // The pod is Failed from now on: this sync stops it with the eviction's grace period.
    mark_evicted(pod["status"], *evicted);
    ctx.grace_period_override = evicted->grace_period_seconds;
  }
  if (refresh_) refresh_(pod);
  size_qos_for(pod);
  SyncResult result = sync_pod(pod, ctx);
  if (evicted && !result.status.is_null()) mark_evicted(result.status, *evicted);
  if (!result.status.is_null()) RETURN_IF_ERROR(write_status(pod, result.status));
  if (result.terminated && pod.value("metadata", json::object()).contains("deletionTimestamp")) {
    RETURN_IF_ERROR(delete_pod(pod));
    return Status::ok();
  }
  if (result.requeue_after) queue_.add_after(key, *result.requeue_after);
  return result.error;
}

void PodManager::scan_static_pods() {
  if (!static_) return;
  for (const std::string& key : static_->scan()) queue_.add(key);
  const auto live = static_->uids();
  std::lock_guard lock(mu_);
  std::erase_if(static_status_, [&](const auto& kv) { return !live.count(kv.first); });
}

Result<client::ObjectPtr> PodManager::sync_mirror(const std::string& key) {
  std::optional<json> desired = static_->desired_mirror(key);
  client::ObjectPtr mirror = informer_.get(key);
  if (mirror) {
    const json& m = api::member(*mirror, "metadata");
    const bool ours =
        desired && api::text(api::member(m, "annotations"), kConfigMirrorAnnotation) ==
                       manager_meta(*desired, "uid");
    if (ours && !m.contains("deletionTimestamp")) return mirror;
    // Another version, not a mirror at all, or deleted by someone: it goes, and a fresh
    // one is made when the informer has seen it go.
    RETURN_IF_ERROR(delete_pod(*mirror));
    return client::ObjectPtr();
  }
  if (!desired) return client::ObjectPtr();
  auto node = client::get(client_, resources::kNodes, "", config_.node_name);
  if (!node.is_ok()) return node.status();  // not registered yet: the sync is retried
  json body = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"spec", (*desired)["spec"]}};
  json& m = body["metadata"];
  for (const char* field : {"name", "namespace", "labels", "annotations"}) {
    if ((*desired)["metadata"].contains(field)) m[field] = (*desired)["metadata"][field];
  }
  m["annotations"][kConfigMirrorAnnotation] = manager_meta(*desired, "uid");
  m["ownerReferences"] = json::array({{{"apiVersion", "v1"},
                                       {"kind", "Node"},
                                       {"name", config_.node_name},
                                       {"uid", manager_meta(*node, "uid")},
                                       {"controller", true}}});
  auto created =
      client::create(client_, resources::kPods, manager_meta(*desired, "namespace"), body);
  if (!created.is_ok() && created.status().code() != Code::kAlreadyExists) {
    events_->record(*desired, "", "Warning", "FailedCreate",
                    "Error creating mirror pod: " + created.status().message());
    return created.status();
  }
  if (!created.is_ok()) return client::ObjectPtr();
  return std::make_shared<const json>(std::move(*created));
}

Status PodManager::sync_static(const std::string& key, json pod) {
  const std::string uid = manager_meta(pod, "uid");
  {
    std::lock_guard lock(mu_);
    if (auto it = static_status_.find(uid); it != static_status_.end()) pod["status"] = it->second;
  }
  size_qos_for(pod);
  SyncContext ctx = sync_context(true);
  if (refresh_) refresh_(pod);
  SyncResult result = sync_pod(pod, ctx);
  json shown = result.status.is_null() ? pod["status"] : result.status;
  {
    std::lock_guard lock(mu_);
    static_status_[uid] = shown;
  }
  const bool finished =
      result.terminated && api::member(pod, "metadata").contains("deletionTimestamp");
  if (finished) {
    // The old version is down: the next sync starts its successor (or removes the mirror).
    static_->terminated(key, uid);
    std::lock_guard lock(mu_);
    static_status_.erase(uid);
    queue_.add(key);
    return result.error;
  }
  if (result.requeue_after) queue_.add_after(key, *result.requeue_after);
  if (!informer_.has_synced()) {
    // No API server has answered yet: the pod runs; its mirror waits for the first list.
    queue_.add_after(key, std::chrono::seconds(1));
    return result.error;
  }
  auto mirror = sync_mirror(key);
  if (!mirror.is_ok()) return mirror.status();
  if (*mirror) {
    // Compared with the mirror as the informer has it (not with what was written before: a
    // mirror made again may show nothing yet).
    RETURN_IF_ERROR(write_status(**mirror, shown));
  } else if (static_->desired_mirror(key)) {
    queue_.add_after(key, std::chrono::seconds(1));  // the mirror comes once the old one went
  }
  return result.error;
}

void PodManager::size_qos_for(const json& pod) {
  if (!api::member(pod, "status").contains("startTime") &&
      api::qos_class(pod) == api::QosClass::kBurstable)
    resize_qos();
}

void PodManager::resize_qos() {
  // Before the API's pods were listed once only the static ones are known.
  if (informer_.has_synced()) {
    qos_.update(burstable_cpu_requests());
  } else {
    qos_.grow(burstable_cpu_requests());
  }
}

int64_t PodManager::burstable_cpu_requests() {
  int64_t total = 0;
  for (const auto& pod : informer_.list()) {
    if (!on_node(*pod, config_.node_name) || terminal(*pod)) continue;
    const json& annotations = api::member(api::member(*pod, "metadata"), "annotations");
    if (!api::text(annotations, kConfigMirrorAnnotation).empty()) continue;  // counted below
    total += api::burstable_cpu_request_milli(*pod);
  }
  if (static_) {
    std::set<std::string> keys;  // a key's older versions still stopping share it
    for (const auto& entry : static_->uids()) keys.insert(entry.second);
    for (const auto& key : keys) {
      auto pod = static_->current(key);
      if (!pod) continue;
      {
        std::lock_guard lock(mu_);
        auto it = static_status_.find(api::text(api::member(*pod, "metadata"), "uid"));
        if (it != static_status_.end()) (*pod)["status"] = it->second;
      }
      if (!terminal(*pod)) total += api::burstable_cpu_request_milli(*pod);
    }
  }
  return total;
}

Result<std::vector<json>> PodManager::list_services(bool static_pod) const {
  // As upstream: without a first list of Services the env cannot be built, except for a
  // static pod, which takes what is known (nothing while no API server answers).
  if (!static_pod && !services_.has_synced()) {
    return error(Code::kServiceUnavailable,
                 "services have not yet been read at least once, cannot construct envvars");
  }
  std::vector<json> out;
  for (const auto& s : services_.list()) out.push_back(*s);
  return out;
}

Status PodManager::write_status(const json& pod, const json& status) {
  if (status == pod.value("status", json::object())) return Status::ok();
  Status written = patch_pod_status(client_, pod, status);
  if (written.code() == Code::kNotFound) return Status::ok();  // gone meanwhile
  RETURN_IF_ERROR(written);
  std::lock_guard lock(mu_);
  written_[manager_meta(pod, "uid")] = status;
  return Status::ok();
}

Result<bool> PodManager::rejected(const json& pod) {
  const json status = pod.value("status", json::object());
  const std::string phase = status.value("phase", "");
  const bool started = status.contains("startTime") && !status["startTime"].is_null();
  // Rejected before (it never started): its status stays as written, as upstream's.
  if (!started && phase == "Failed" && status.value("reason", "") == "Evicted" &&
      status.value("message", "").starts_with("Pod was rejected: "))
    return true;
  if (!admit_ || started || (phase != "Pending" && !phase.empty())) return false;
  std::optional<std::string> message = admit_(pod);
  if (!message) return false;
  log::for_role("kubelet")->info("rejecting pod {}: {}", pod_description(pod), *message);
  events_->record(pod, "", "Warning", "Evicted", *message);
  json failed = status;
  failed["phase"] = "Failed";
  failed["reason"] = "Evicted";
  failed["message"] = "Pod was rejected: " + *message;
  RETURN_IF_ERROR(write_status(pod, failed));
  return true;
}

void PodManager::evict(const json& pod, const std::string& message, bool disruption_condition,
                       int64_t grace_period_seconds) {
  {
    std::lock_guard lock(mu_);
    evictions_[manager_meta(pod, "uid")] = {message, disruption_condition, grace_period_seconds,
                                            rfc3339(clock_.wall_now())};
  }
  events_->record(pod, "", "Warning", "Evicted", message);
  log::for_role("kubelet")->info("evicting pod {}: {}", pod_description(pod), message);
  queue_.add(client::key_of(pod));
}

Status PodManager::delete_pod(const json& pod) {
  RETURN_IF_ERROR(confirm_pod_deletion(client_, pod));
  std::lock_guard lock(mu_);
  written_.erase(manager_meta(pod, "uid"));
  return Status::ok();
}

}  // namespace k3c::kubelet

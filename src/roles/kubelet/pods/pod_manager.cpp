// The pod manager (see pod_manager.h).
#include "roles/kubelet/pods/pod_manager.h"

#include <filesystem>

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

std::string meta(const json& pod, const char* field) {
  return pod.value("metadata", json::object()).value(field, "");
}

bool on_node(const json& pod, const std::string& node) {
  return pod.value("spec", json::object()).value("nodeName", "") == node;
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
      informer_(client, resources::kPods, node_selector(config_.node_name)),
      services_(client, resources::kServices),
      queue_(clock) {
  auto enqueue = [this](const client::ObjectPtr& pod) {
    if (pod && on_node(*pod, config_.node_name)) queue_.add(client::key_of(*pod));
  };
  informer_.add_handler({.on_add = enqueue,
                         .on_update = [enqueue](const client::ObjectPtr&,
                                                const client::ObjectPtr& now) { enqueue(now); },
                         .on_delete = enqueue});
}

PodManager::~PodManager() { stop(); }

void PodManager::start() {
  services_.start();
  informer_.start();
  for (int i = 0; i < config_.workers; ++i) threads_.emplace_back([this] { work(); });
  threads_.emplace_back([this] { relist_loop(); });
}

void PodManager::stop() {
  {
    std::lock_guard lock(stop_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  queue_.shut_down();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  informer_.stop();
  services_.stop();
}

void PodManager::work() {
  // Containers need the Service variables: no sync before the Services were listed once.
  while (!services_.wait_synced(std::chrono::milliseconds(100))) {
    std::lock_guard lock(stop_mu_);
    if (stopping_) return;
  }
  while (auto key = queue_.get()) {
    Status s = sync(*key);
    if (!s.is_ok()) {
      log::for_role("kubelet")->warn("sync of pod {} failed: {}", *key, s.to_string());
      queue_.add_rate_limited(*key);
    } else {
      queue_.forget(*key);
    }
    queue_.done(*key);
  }
}

void PodManager::relist_loop() {
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    lock.unlock();
    if (informer_.has_synced()) relist_once();
    lock.lock();
    stop_cv_.wait_for(lock, config_.relist_period, [this] { return stopping_; });
  }
}

void PodManager::relist_once() {
  auto sandboxes = runtime_.list_pod_sandboxes();
  auto containers = runtime_.list_containers();
  if (!sandboxes.is_ok() || !containers.is_ok()) return;
  std::map<std::string, std::string> uid_to_key;
  for (const auto& pod : informer_.list()) {
    if (on_node(*pod, config_.node_name)) uid_to_key[meta(*pod, "uid")] = client::key_of(*pod);
  }
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
  {
    std::lock_guard lock(mu_);
    std::erase_if(written_, [&](const auto& kv) { return !uid_to_key.count(kv.first); });
  }
  std::vector<std::string> live;
  for (const auto& c : *containers) live.push_back(c.id);
  probes_.retain(live);
  crash_backoff_.gc();
  pull_backoff_.gc();
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
}

ConfigSource& PodManager::objects() { return *objects_; }

Status PodManager::sync(const std::string& key) {
  client::ObjectPtr cached = informer_.get(key);
  if (!cached || !on_node(*cached, config_.node_name)) return Status::ok();
  json pod = *cached;
  const std::string uid = meta(pod, "uid");
  {
    // What this kubelet last wrote is fresher than a cache that has not seen it yet.
    std::lock_guard lock(mu_);
    if (auto it = written_.find(uid); it != written_.end()) pod["status"] = it->second;
  }
  SyncContext ctx{runtime_,
                  images_,
                  *objects_,
                  *events_,
                  clock_,
                  crash_backoff_,
                  pull_backoff_,
                  config_.node,
                  config_.dns,
                  config_.log_root,
                  mounts_,
                  &probes_,
                  [this] { return list_services(); },
                  config_.cgroup_root};
  if (refresh_) refresh_(pod);
  SyncResult result = sync_pod(pod, ctx);
  if (!result.status.is_null()) RETURN_IF_ERROR(write_status(pod, result.status));
  if (result.terminated && pod.value("metadata", json::object()).contains("deletionTimestamp")) {
    RETURN_IF_ERROR(delete_pod(pod));
    return Status::ok();
  }
  if (result.requeue_after) queue_.add_after(key, *result.requeue_after);
  return result.error;
}

Result<std::vector<json>> PodManager::list_services() const {
  // As upstream: without a first list of Services the env cannot be built.
  if (!services_.has_synced()) {
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
  written_[meta(pod, "uid")] = status;
  return Status::ok();
}

Status PodManager::delete_pod(const json& pod) {
  RETURN_IF_ERROR(confirm_pod_deletion(client_, pod));
  std::lock_guard lock(mu_);
  written_.erase(meta(pod, "uid"));
  return Status::ok();
}

}  // namespace k3c::kubelet

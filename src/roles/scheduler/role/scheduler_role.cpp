// The scheduler role: lifecycle, leader election and the informers feeding cache and queue
// (see scheduler_role.h).
#include "roles/scheduler/role/scheduler_role.h"

#include "api/json_fields.h"
#include "client/event_recorder.h"
#include "client/in_process_client.h"
#include "client/informer.h"
#include "client/leader_election.h"
#include "core/log.h"
#include "core/thread_set.h"
#include "roles/scheduler/role/object_changes.h"
#include "roles/scheduler/role/scheduler_cache.h"
#include "roles/scheduler/role/scheduling_cycle.h"
#include "roles/scheduler/role/scheduling_queue.h"

namespace k3c::scheduler {

using nlohmann::json;

namespace {

// What the scheduler's events about a pending pod name (EventRecorder::record reads no more):
// the queue keeps this instead of the pod, so thousands of pending pods hold no trees.
client::ObjectPtr event_subject(const json& pod) {
  json meta = json::object();
  if (auto m = pod.find("metadata"); m != pod.end() && m->is_object()) {
    for (const char* field : {"name", "namespace", "uid", "resourceVersion"}) {
      if (auto f = m->find(field); f != m->end()) meta[field] = *f;
    }
  }
  return std::make_shared<const json>(json{{"apiVersion", pod.value("apiVersion", "v1")},
                                           {"kind", pod.value("kind", "Pod")},
                                           {"metadata", std::move(meta)}});
}

// (Members are read in place: value("metadata", ...) would copy the whole subtree per event.)
std::string pod_uid(const json& object) {
  return api::text(api::member(object, "metadata"), "uid");
}

bool assigned(const json& pod) {
  const json& name = api::member(api::member(pod, "spec"), "nodeName");
  return name.is_string() && !name.get_ref<const std::string&>().empty();
}

}  // namespace

SchedulerRole::SchedulerRole(SchedulerConfig config, const Clock& clock)
    : config_(std::move(config)), clock_(clock) {}

SchedulerRole::~SchedulerRole() { stop(); }

Status SchedulerRole::start() {
  // Until RBAC exists the scheduler's identity carries system:masters (upstream binds
  // system:kube-scheduler to the system:kube-scheduler ClusterRole).
  http::PeerIdentity identity;
  identity.user = "system:kube-scheduler";
  identity.groups = {"system:masters", "system:authenticated"};
  client_ = std::make_unique<client::InProcessClient>(config_.handler, identity);
  leadership_ = std::make_unique<client::LeadershipRun>(
      *client_, config_.settings.leader_election, "kube-scheduler", config_.identity,
      [this] { start_scheduling(); }, [this] { stop_scheduling(); }, clock_);
  ready_ = true;
  return Status::ok();
}

// Pods: pending ones of ours go to the queue, assigned ones to the cache. Finished pods are
// not listed (field selector) and leave both when they finish.
void SchedulerRole::watch_pods() {
  client::ListOptions selectors;
  selectors.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  // Trimmed as the controllers' pods (config_.pod_transform), so that both share one tree per
  // pod: the scheduler only patches and binds pods, never writes one back whole.
  pods_ = std::make_unique<client::Informer>(*client_, client::resources::kPods, selectors,
                                             config_.shared_objects, config_.pod_transform);
  auto apply = [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
    const json& pod = *now;
    if (pod_finished(pod)) {
      cache_->remove_pod(pod_uid(pod));
      queue_->remove(client::key_of(pod));
      if (assigned(pod)) queue_->move_all();
      return;
    }
    if (assigned(pod)) {
      queue_->remove(client::key_of(pod));
      auto info = pod_from_json(pod);
      if (!info.is_ok()) return;
      PodPtr parsed = std::move(info).value();
      bool affinity_relevant = !old || !assigned(*old);
      cache_->add_or_update_pod(parsed);
      // A pod placed may satisfy a waiting pod's required pod affinity.
      if (affinity_relevant) {
        queue_->move_all([](const PodInfo& p) { return !p.required_affinity.empty(); });
      }
      return;
    }
    if (!waits_for_scheduler(pod, config_.scheduler_name)) {
      queue_->remove(client::key_of(pod));
      return;
    }
    auto info = pod_from_json(pod);
    if (!info.is_ok()) return;
    queue_->add_or_update(std::move(info).value(), event_subject(pod),
                          !old || pod_spec_changed(*old, pod));
  };
  client::EventHandler handler;
  handler.on_add = [apply](const client::ObjectPtr& pod) { apply(nullptr, pod); };
  handler.on_update = apply;
  handler.on_delete = [this](const client::ObjectPtr& pod) {
    cache_->remove_pod(pod_uid(*pod));
    queue_->remove(client::key_of(*pod));
    // Room freed on a node.
    if (assigned(*pod)) queue_->move_all();
  };
  pods_->add_handler(std::move(handler));
}

void SchedulerRole::watch_nodes() {
  // Compact as the controllers' nodes, so that both share one document per node.
  nodes_ =
      std::make_unique<client::Informer>(*client_, client::resources::kNodes, client::ListOptions{},
                                         config_.shared_objects, client::compact_objects());
  auto put = [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
    auto node = node_from_json(*now);
    if (!node.is_ok()) return;
    cache_->add_or_update_node(std::move(node).value());
    if (!old || node_scheduling_changed(*old, *now)) queue_->move_all();
  };
  client::EventHandler handler;
  handler.on_add = [put](const client::ObjectPtr& node) { put(nullptr, node); };
  handler.on_update = put;
  handler.on_delete = [this](const client::ObjectPtr& node) {
    cache_->remove_node(client::key_of(*node));
  };
  nodes_->add_handler(std::move(handler));
}

// Namespace labels, for pod affinity terms with a namespaceSelector.
void SchedulerRole::watch_namespaces() {
  namespaces_ = std::make_unique<client::Informer>(*client_, client::resources::kNamespaces,
                                                   client::ListOptions{}, config_.shared_objects);
  auto put = [this](const client::ObjectPtr& ns) {
    const json& meta = ns->value("metadata", json::object());
    Labels labels = labels_from_json(meta.value("labels", json::object()));
    cache_->write([&](Snapshot& s) { s.namespaces[client::key_of(*ns)] = std::move(labels); });
  };
  client::EventHandler handler;
  handler.on_add = put;
  handler.on_update = [put](const client::ObjectPtr&, const client::ObjectPtr& now) { put(now); };
  handler.on_delete = [this](const client::ObjectPtr& ns) {
    cache_->write([&](Snapshot& s) { s.namespaces.erase(client::key_of(*ns)); });
  };
  namespaces_->add_handler(std::move(handler));
}

void SchedulerRole::start_scheduling() {
  std::lock_guard lock(mu_);
  if (worker_.joinable()) return;
  auto logger = log::for_role("scheduler");
  QueueSettings settings;
  settings.initial_backoff = std::chrono::seconds(config_.pod_initial_backoff_seconds);
  settings.max_backoff = std::chrono::seconds(config_.pod_max_backoff_seconds);
  settings.max_in_unschedulable = config_.settings.pod_max_in_unschedulable_pods_duration;
  cache_ = std::make_unique<SchedulerCache>();
  queue_ = std::make_unique<SchedulingQueue>(clock_, settings);
  events_ = std::make_unique<client::EventRecorder>(*client_, config_.scheduler_name, clock_);
  watch_namespaces();
  watch_nodes();
  watch_pods();
  cycle_ = std::make_unique<SchedulingCycle>(config_, *client_, *cache_, *queue_, *events_, *pods_,
                                             clock_);
  namespaces_->start();
  nodes_->start();
  pods_->start();
  // Decide only on filled caches: a half-listed cache would see free room that is taken.
  bool synced = namespaces_->wait_synced(std::chrono::seconds(30)) &&
                nodes_->wait_synced(std::chrono::seconds(30)) &&
                pods_->wait_synced(std::chrono::seconds(30));
  if (!synced) logger->warn("informers not synced after 30 s; scheduling anyway");
  worker_stopping_ = false;
  worker_ = std::thread([this] {
    name_this_thread("scheduler");
    run_worker();
  });
  logger->info("scheduling pods for {}", config_.scheduler_name);
}

void SchedulerRole::run_worker() {
  while (!worker_stopping_) {
    auto pod = queue_->pop(std::chrono::seconds(1));
    if (pod) cycle_->run(*pod);
  }
}

void SchedulerRole::stop_scheduling() {
  std::lock_guard lock(mu_);
  worker_stopping_ = true;
  if (queue_) queue_->close();
  if (worker_.joinable()) worker_.join();
  // Bindings still running finish (their writes and events) before what they use stops.
  cycle_.reset();
  for (auto* informer : {&pods_, &nodes_, &namespaces_}) {
    if (*informer) (*informer)->stop();
  }
  if (events_) events_->stop();
  pods_.reset();
  nodes_.reset();
  namespaces_.reset();
  events_.reset();
  queue_.reset();
  cache_.reset();
}

void SchedulerRole::stop() {
  if (leadership_) leadership_->stop();  // releases the lease and stops scheduling
  stop_scheduling();
  leadership_.reset();
  client_.reset();
  ready_ = false;
}

}  // namespace k3c::scheduler

// One scheduling attempt and what it writes to the API (see scheduling_cycle.h).
#include "roles/scheduler/role/scheduling_cycle.h"

#include <random>

#include "core/ids.h"
#include "core/log.h"
#include "roles/scheduler/parse_common.h"
#include "roles/scheduler/preemption.h"
#include "roles/scheduler/role/object_changes.h"

namespace k3c::scheduler {

using nlohmann::json;

namespace {

const client::ResourceId kPodDisruptionBudgets{"policy", "v1", "poddisruptionbudgets"};
constexpr const char* kStrategicMerge = "application/strategic-merge-patch+json";
// Upstream cuts event messages at 1024 bytes.
constexpr size_t kMaxEventMessage = 1024;
// Bindings in flight at once, and waiting beyond them (binder.h): enough concurrent writes
// to fill the store's group commits.
constexpr int kBindingThreads = 16;
constexpr size_t kBindingsWaiting = 64;

std::string uid_of(const json& object) {
  const json& meta = object.value("metadata", json::object());
  return meta.is_object() ? meta.value("uid", "") : "";
}

// What an event about a pod the cache knows only as PodInfo names.
json pod_reference(const PodInfo& pod) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", pod.name}, {"namespace", pod.namespace_}, {"uid", pod.uid}}}};
}

Status reply_status(const Result<client::Reply>& reply) {
  if (!reply.is_ok()) return reply.status();
  if (reply->status / 100 == 2) return Status::ok();
  return client::status_of(*reply);
}

}  // namespace

SchedulingCycle::SchedulingCycle(const SchedulerConfig& config, client::Client& client,
                                 SchedulerCache& cache, SchedulingQueue& queue,
                                 client::EventRecorder& events, const client::Informer& pods,
                                 const Clock& clock)
    : config_(config),
      client_(client),
      cache_(cache),
      queue_(queue),
      events_(events),
      pods_(pods),
      clock_(clock),
      seed_(std::random_device{}()),
      binder_(kBindingThreads, kBindingsWaiting) {}

void SchedulingCycle::run(const QueuedPod& queued) {
  const PodInfo& pod = *queued.info;
  // The informer may know better by now: bound by someone else, deleted, replaced.
  client::ObjectPtr current = pods_.get(queued.key());
  if (!current || uid_of(*current) != pod.uid ||
      !waits_for_scheduler(*current, config_.scheduler_name) || cache_.is_assumed(pod.uid)) {
    queue_.done(queued.key());
    return;
  }
  if (!pod.pvc_names.empty()) load_volumes(pod);
  ScheduleOptions options;
  options.percentage_of_nodes_to_score = config_.percentage_of_nodes_to_score;
  options.start_index = next_start_index_;
  options.seed = seed_;
  ScheduleResult result = cache_.read([&](const Snapshot& s) { return schedule(s, pod, options); });
  next_start_index_ = result.next_start_index;
  if (result.scheduled()) {
    bind(queued, result.node);
  } else {
    unschedulable(queued, result);
  }
}

// The pod counts on its node from now on (assumed); the binding itself runs on the binder.
// The pod stays in flight in the queue until the binding's outcome is known.
void SchedulingCycle::bind(const QueuedPod& queued, const std::string& node) {
  auto assumed = std::make_shared<PodInfo>(*queued.info);
  assumed->node_name = node;
  cache_.assume(assumed);
  if (!binder_.submit([this, queued, node] { finish_binding(queued, node); })) {
    cache_.forget(queued.info->uid);  // stopping: the next scheduler places it
  }
}

// On a binder thread.
void SchedulingCycle::finish_binding(const QueuedPod& queued, const std::string& node) {
  const PodInfo& pod = *queued.info;
  json binding = {
      {"apiVersion", "v1"},
      {"kind", "Binding"},
      {"metadata", {{"name", pod.name}, {"namespace", pod.namespace_}, {"uid", pod.uid}}},
      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  Status bound = select_node_for_claims(pod, node);
  if (bound.is_ok()) {
    std::string target = client::resources::kPods.path(pod.namespace_, pod.name, "binding");
    bound = reply_status(client_.request("POST", target, binding.dump()));
  }
  if (bound.is_ok()) {
    events_.record(*queued.object, "Normal", "Scheduled",
                   "Successfully assigned " + pod.key() + " to " + node, config_.scheduler_name);
    queue_.done(queued.key());
    return;
  }
  cache_.forget(pod.uid);
  log::for_role("scheduler")->warn("binding {} to {}: {}", pod.key(), node, bound.message());
  if (bound.code() == Code::kNotFound) {
    queue_.done(queued.key());
    return;
  }
  events_.record(*queued.object, "Warning", "FailedScheduling",
                 "Binding rejected: " + bound.message(), config_.scheduler_name);
  queue_.requeue_backoff(queued);
}

// Unbound WaitForFirstConsumer claims learn the chosen node (upstream's VolumeBinding
// PreBind), for their provisioner and the volume binder. Upstream then waits for the
// volumes to be bound before binding the pod; the kubelet waits for them instead.
Status SchedulingCycle::select_node_for_claims(const PodInfo& pod, const std::string& node) {
  std::vector<std::string> waiting = cache_.read([&](const Snapshot& s) {
    std::vector<std::string> names;
    for (const std::string& name : pod.pvc_names) {
      auto claim = s.claims.find(pod.namespace_ + "/" + name);
      if (claim != s.claims.end() && claim->second.volume_name.empty() &&
          claim->second.wait_for_first_consumer) {
        names.push_back(name);
      }
    }
    return names;
  });
  for (const std::string& name : waiting) {
    json patch = {{"metadata", {{"annotations", {{"volume.kubernetes.io/selected-node", node}}}}}};
    RETURN_IF_ERROR(client::patch_unanswered(client_, client::resources::kPersistentVolumeClaims,
                                             pod.namespace_, name, "application/merge-patch+json",
                                             patch));
  }
  return Status::ok();
}

void SchedulingCycle::unschedulable(const QueuedPod& queued, const ScheduleResult& result) {
  const PodInfo& pod = *queued.info;
  if (!pod.preempt_never) load_disruption_budgets();
  PreemptionOptions preemption;
  preemption.min_candidate_nodes_percentage = config_.min_candidate_nodes_percentage;
  preemption.min_candidate_nodes_absolute = config_.min_candidate_nodes_absolute;
  preemption.offset = preemption_offset_++;
  PreemptionResult preempted;
  std::string message = cache_.read([&](const Snapshot& s) {
    preempted = preempt(s, pod, result.diagnosis, preemption);
    return fit_error_message(s.size(), result.diagnosis, preempted.message);
  });
  if (preempted.found()) delete_victims(pod, preempted.nominated_node, preempted.victims);

  std::string event =
      message.size() > kMaxEventMessage ? message.substr(0, kMaxEventMessage) : message;
  events_.record(*queued.object, "Warning", "FailedScheduling", event, config_.scheduler_name);
  client::ObjectPtr current = pods_.get(queued.key());
  if (current) {
    auto patch = unschedulable_patch(*current, message, preempted.nominated_node,
                                     rfc3339(clock_.wall_now()));
    if (patch) {
      auto written = client::patch(client_, client::resources::kPods, pod.namespace_, pod.name,
                                   kStrategicMerge, *patch, "status");
      if (!written.is_ok() && written.status().code() != Code::kNotFound) {
        log::for_role("scheduler")->warn("status of {}: {}", pod.key(), written.status().message());
      }
    }
  }
  if (preempted.found()) {
    // Tried again after its backoff: by then the victims may be gone (their deletion also
    // moves it), or their termination still blocks it and it waits as unschedulable.
    queue_.requeue_backoff(queued);
  } else {
    queue_.requeue_unschedulable(queued);
  }
}

// As upstream: each victim is marked DisruptionTarget (reason PreemptionByScheduler), told
// by an event, and deleted with its grace period (its kubelet stops it).
void SchedulingCycle::delete_victims(const PodInfo& preemptor, const std::string& node,
                                     const std::vector<PodPtr>& victims) {
  auto logger = log::for_role("scheduler");
  std::string now = rfc3339(clock_.wall_now());
  for (const PodPtr& victim : victims) {
    json condition = {
        {"type", "DisruptionTarget"},
        {"status", "True"},
        {"reason", "PreemptionByScheduler"},
        {"message", config_.scheduler_name + ": preempting to accommodate a higher priority pod"},
        {"lastTransitionTime", now}};
    json patch = {{"status", {{"conditions", json::array({condition})}}}};
    auto marked = client::patch(client_, client::resources::kPods, victim->namespace_, victim->name,
                                kStrategicMerge, patch, "status");
    if (!marked.is_ok() && marked.status().code() == Code::kNotFound) continue;
    client::DeleteOptions options;
    options.precondition_uid = victim->uid;
    Status deleted = client::remove(client_, client::resources::kPods, victim->namespace_,
                                    victim->name, options);
    if (!deleted.is_ok() && deleted.code() != Code::kNotFound) {
      logger->warn("preempting {}: {}", victim->key(), deleted.message());
      continue;
    }
    events_.record(pod_reference(*victim), "Normal", "Preempted",
                   "Preempted by pod " + preemptor.uid + " on node " + node,
                   config_.scheduler_name);
  }
}

// The pod's claims as VolumeBinding reads them: bound volume and its node affinity, or for
// an unbound claim whether its StorageClass waits for the first consumer.
void SchedulingCycle::load_volumes(const PodInfo& pod) {
  std::map<std::string, ClaimInfo> claims;
  std::map<std::string, std::optional<NodeSelector>> volumes;
  for (const std::string& name : pod.pvc_names) {
    auto claim =
        client::get(client_, client::resources::kPersistentVolumeClaims, pod.namespace_, name);
    if (!claim.is_ok()) continue;  // missing: the pre-filter reports it
    const json& spec = api::member(*claim, "spec");
    ClaimInfo info;
    info.volume_name = api::text(spec, "volumeName");
    if (info.volume_name.empty()) {
      const std::string& class_name = api::text(spec, "storageClassName");
      if (!class_name.empty()) {
        auto sc = client::get(client_, client::resources::kStorageClasses, "", class_name);
        info.wait_for_first_consumer =
            sc.is_ok() && api::text(*sc, "volumeBindingMode") == "WaitForFirstConsumer";
      }
    } else if (auto pv = client::get(client_, client::resources::kPersistentVolumes, "",
                                     info.volume_name);
               pv.is_ok()) {
      const json& required =
          api::member(api::member(api::member(*pv, "spec"), "nodeAffinity"), "required");
      std::optional<NodeSelector> affinity;
      if (required.is_object()) affinity = node_selector_from_json(required);
      volumes[info.volume_name] = std::move(affinity);
    }
    claims[pod.namespace_ + "/" + name] = std::move(info);
  }
  cache_.write([&](Snapshot& s) {
    for (auto& [key, claim] : claims) s.claims[key] = std::move(claim);
    for (auto& [name, affinity] : volumes) s.volume_node_affinity[name] = std::move(affinity);
  });
}

void SchedulingCycle::load_disruption_budgets() {
  auto list = client::list(client_, kPodDisruptionBudgets, "");
  if (!list.is_ok()) return;
  std::vector<DisruptionBudget> budgets;
  const json& items = api::member(*list, "items");
  if (items.is_array()) {
    for (const json& pdb : items) {
      DisruptionBudget b;
      b.namespace_ = api::text(api::member(pdb, "metadata"), "namespace");
      b.selector = label_selector_from_json(api::member(api::member(pdb, "spec"), "selector"));
      const json& allowed = api::member(api::member(pdb, "status"), "disruptionsAllowed");
      b.disruptions_allowed = allowed.is_number_integer() ? allowed.get<int32_t>() : 0;
      budgets.push_back(std::move(b));
    }
  }
  cache_.write([&](Snapshot& s) { s.disruption_budgets = std::move(budgets); });
}

}  // namespace k3c::scheduler

#include "roles/controllers/daemonset/daemon_set_controller.h"

#include <algorithm>
#include <set>

#include "api/object_selectors.h"
#include "roles/controllers/common/claim.h"
#include "roles/controllers/common/controller_history.h"
#include "roles/controllers/daemonset/daemon_placement.h"
#include "roles/controllers/daemonset/daemon_rolling.h"

namespace k3c::controllers {

namespace {

constexpr const char* kDaemonSetSource = "daemonset-controller";
constexpr size_t kDaemonBurst = 250;  // pods created or deleted per reconcile, as upstream

std::string hash_of(const json& object) {
  return object.value("metadata", json::object())
      .value("labels", json::object())
      .value(kDaemonRevisionLabel, "");
}

// Oldest first; of equal age a running one before a pending one.
void sort_by_age(std::vector<json>& pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const json& a, const json& b) {
    const std::string& ta = meta_str(a, "creationTimestamp");
    const std::string& tb = meta_str(b, "creationTimestamp");
    if (ta != tb) return ta < tb;
    return a.value("status", json::object()).value("phase", "") == "Running" &&
           b.value("status", json::object()).value("phase", "") != "Running";
  });
}

}  // namespace

struct DaemonSetController::Sync {
  json ds;
  std::string key;
  std::string hash;  // of the current template's revision
  std::vector<client::ObjectPtr> nodes;
  std::map<std::string, std::vector<json>> node_pods;  // target node -> its daemon pods
  int64_t min_ready = 0;
  std::chrono::system_clock::time_point now;
  int64_t collision_count = 0;
};

DaemonSetController::DaemonSetController(ControllerContext& ctx)
    : Controller("daemonset"),
      ctx_(ctx),
      sets_(ctx.informers.informer(client::resources::kDaemonSets)),
      pods_(ctx.informers.informer(client::resources::kPods)),
      nodes_(ctx.informers.informer(client::resources::kNodes)),
      revisions_(ctx.informers.informer(client::resources::kControllerRevisions)),
      expectations_(ctx.clock) {
  index_by_controller(pods_);
  index_by_controller(revisions_);
  auto changed = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  sets_.add_handler(
      {changed, [=](auto&, auto& o) { changed(o); },
       [this](const client::ObjectPtr& o) { expectations_.forget(client::key_of(*o)); }});
  pods_.add_handler(
      {[this](const client::ObjectPtr& p) { pod_added(p); },
       [this](const client::ObjectPtr& a, const client::ObjectPtr& b) { pod_updated(a, b); },
       [this](const client::ObjectPtr& p) { pod_deleted(p); }});
  // Nodes joining or leaving, or changing what decides placement, concern every set.
  nodes_.add_handler({[this](const client::ObjectPtr&) { enqueue_all(); },
                      [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                        auto labels = [](const json& n) {
                          return n.value("metadata", json::object()).value("labels", json());
                        };
                        if (labels(*old) != labels(*now) ||
                            old->value("spec", json()) != now->value("spec", json()))
                          enqueue_all();
                      },
                      [this](const client::ObjectPtr&) { enqueue_all(); }});
}

void DaemonSetController::enqueue_all() {
  for (const auto& ds : sets_.list()) enqueue(client::key_of(*ds));
}

void DaemonSetController::enqueue_owner_of(const json& pod) {
  const json* ref = controller_ref(pod);
  if (ref && ref->value("kind", "") == "DaemonSet") {
    enqueue(namespace_of(pod) + "/" + ref->value("name", ""));
    return;
  }
  if (ref) return;
  Labels labels = api::labels_of(pod);
  for (const auto& ds : sets_.in_namespace(namespace_of(pod))) {
    auto selector =
        api::label_selector_of(ds->value("spec", json::object()).value("selector", json()));
    if (selector && selector->matches(labels)) enqueue(client::key_of(*ds));
  }
}

void DaemonSetController::pod_added(const client::ObjectPtr& pod) {
  const json* ref = controller_ref(*pod);
  if (ref && ref->value("kind", "") == "DaemonSet")
    expectations_.creation_observed(namespace_of(*pod) + "/" + ref->value("name", ""));
  enqueue_owner_of(*pod);
}

void DaemonSetController::pod_updated(const client::ObjectPtr& old, const client::ObjectPtr& now) {
  const json* ref = controller_ref(*now);
  // As upstream, every change of a pod marked for deletion, and its removal (pod_deleted),
  // counts as a deletion seen: a bound pod waits for its kubelet, and a pod another actor
  // marked first (the taint eviction controller) shows no marking after the set's own delete.
  // Counting only the marking left the set waiting five minutes for a deletion it had seen
  // already (a rolling update stalled in integration.workloads).
  if (being_deleted(*now) && ref && ref->value("kind", "") == "DaemonSet")
    expectations_.deletion_observed(namespace_of(*now) + "/" + ref->value("name", ""));
  const json* a = controller_ref(*old);
  if (a && (!ref || *a != *ref)) enqueue_owner_of(*old);
  enqueue_owner_of(*now);
}

void DaemonSetController::pod_deleted(const client::ObjectPtr& pod) {
  const json* ref = controller_ref(*pod);
  if (ref && ref->value("kind", "") == "DaemonSet")
    expectations_.deletion_observed(namespace_of(*pod) + "/" + ref->value("name", ""));
  enqueue_owner_of(*pod);
}

Status DaemonSetController::reconcile(const std::string& key) {
  auto cached = sets_.get(key);
  if (!cached) {
    expectations_.forget(key);
    return Status::ok();
  }
  Sync s;
  s.ds = *cached;
  s.key = key;
  s.now = ctx_.clock.wall_now();
  const json& spec = s.ds.value("spec", json::object());
  s.min_ready = spec.value("minReadySeconds", int64_t{0});
  if (being_deleted(s.ds)) return Status::ok();  // the garbage collector takes the pods
  // Expectations before the pods are read, as upstream (see the ReplicaSet controller).
  const bool satisfied = expectations_.satisfied(key);
  ASSIGN_OR_RETURN(auto pods,
                   claim(ctx_.client, {client::resources::kPods, "apps/v1", "DaemonSet"}, s.ds,
                         api::label_selector_of(spec.value("selector", json())), pods_));
  HistoryOwner owner{s.ds, "apps/v1", "DaemonSet"};
  ASSIGN_OR_RETURN(auto revisions, owned_revisions(ctx_.client, revisions_, owner));
  ASSIGN_OR_RETURN(
      auto update,
      sync_update_revision(ctx_.client, owner, std::move(revisions),
                           s.ds.value("status", json::object()).value("collisionCount", int64_t{0}),
                           kDaemonRevisionLabel));
  s.hash = hash_of(update.revision);
  if (s.hash.empty()) s.hash = revision_hash(update.revision.value("data", json()), 0);
  s.collision_count = update.collision_count;
  s.nodes = nodes_.list();
  std::sort(s.nodes.begin(), s.nodes.end(),
            [](const auto& a, const auto& b) { return name_of(*a) < name_of(*b); });
  for (const auto& pod : pods) s.node_pods[target_node(*pod)].push_back(*pod);

  Status synced;
  if (satisfied) {
    auto acted = manage(s);
    if (!acted.is_ok()) {
      synced = acted.status();
    } else if (!*acted &&
               spec.value("updateStrategy", json::object()).value("type", "") == "RollingUpdate") {
      synced = rolling_update(s);
    }
  }
  // History: what live pods run, and the current template, stay.
  std::set<std::string> hashes;
  for (const auto& pod : pods) hashes.insert(hash_of(*pod));
  std::set<std::string> in_use = {name_of(update.revision)};
  for (const auto& r : update.revisions) {
    if (hashes.count(hash_of(r))) in_use.insert(name_of(r));
  }
  RETURN_IF_ERROR(truncate_history(ctx_.client, update.revisions, in_use,
                                   spec.value("revisionHistoryLimit", int64_t{10})));
  RETURN_IF_ERROR(update_status(s));
  return synced;
}

Result<bool> DaemonSetController::manage(Sync& s) {
  std::vector<std::string> to_delete, to_create;
  bool surge = allows_surge(s.ds);
  std::set<std::string> known;
  for (const auto& node : s.nodes) {
    const std::string& name = name_of(*node);
    known.insert(name);
    Placement place = placement(s.ds, *node);
    auto found = s.node_pods.find(name);
    bool exists = found != s.node_pods.end() && !found->second.empty();
    if (place.should_run && !exists) {
      to_create.push_back(name);
      continue;
    }
    if (!exists) continue;
    std::vector<json> running;
    for (const auto& pod : found->second) {
      if (being_deleted(pod)) continue;
      if (!place.should_continue_running) {
        to_delete.push_back(name_of(pod));
        continue;
      }
      std::string phase = pod.value("status", json::object()).value("phase", "");
      // A finished daemon pod is replaced (upstream also backs off a pod failing in a loop).
      if (phase == "Failed" || phase == "Succeeded") {
        to_delete.push_back(name_of(pod));
      } else {
        running.push_back(pod);
      }
    }
    if (running.size() < 2) continue;
    sort_by_age(running);
    if (!surge) {
      for (size_t i = 1; i < running.size(); ++i) to_delete.push_back(name_of(running[i]));
      continue;
    }
    // With surge two pods may share a node: the oldest new one and the oldest old one, while
    // the new one is not yet available and the old one still ready.
    const json* oldest_new = nullptr;
    const json* oldest_old = nullptr;
    for (const auto& pod : running) {
      const json*& slot = hash_of(pod) == s.hash ? oldest_new : oldest_old;
      if (!slot) {
        slot = &pod;
      } else {
        to_delete.push_back(name_of(pod));
      }
    }
    if (oldest_new && oldest_old &&
        (!pod_ready(*oldest_old) || pod_available(*oldest_new, s.min_ready, s.now)))
      to_delete.push_back(name_of(*oldest_old));
  }
  // Unscheduled pods for nodes that are gone: no scheduler will ever bind them. Bound ones
  // are the pod garbage collector's (it waits for the node to stay gone), as upstream.
  for (const auto& [node, pods] : s.node_pods) {
    if (known.count(node)) continue;
    for (const auto& pod : pods) {
      if (!being_deleted(pod) && pod.value("spec", json::object()).value("nodeName", "").empty())
        to_delete.push_back(name_of(pod));
    }
  }
  if (to_delete.empty() && to_create.empty()) return false;
  RETURN_IF_ERROR(sync_nodes(s, to_delete, to_create));
  return true;
}

Status DaemonSetController::rolling_update(Sync& s) {
  std::vector<NodeDaemonPods> nodes;
  int64_t desired = 0;
  for (const auto& node : s.nodes) {
    NodeDaemonPods n;
    n.node = name_of(*node);
    n.should_run = placement(s.ds, *node).should_run;
    if (n.should_run) ++desired;
    auto found = s.node_pods.find(n.node);
    if (found == s.node_pods.end()) continue;
    for (const auto& pod : found->second) {
      if (being_deleted(pod)) continue;
      auto& slot = hash_of(pod) == s.hash ? n.new_pod : n.old_pod;
      if (slot) n.consistent = false;
      slot = DaemonPodState{name_of(pod), pod_available(pod, s.min_ready, s.now)};
    }
    nodes.push_back(std::move(n));
  }
  RollingPlan plan = plan_rolling_update(nodes, daemon_bounds(s.ds, desired));
  if (plan.delete_pods.empty() && plan.create_on_nodes.empty()) return Status::ok();
  return sync_nodes(s, plan.delete_pods, plan.create_on_nodes);
}

Status DaemonSetController::sync_nodes(Sync& s, const std::vector<std::string>& delete_pods,
                                       const std::vector<std::string>& create_on_nodes) {
  size_t creates = std::min(create_on_nodes.size(), kDaemonBurst);
  size_t deletes = std::min(delete_pods.size(), kDaemonBurst);
  expectations_.expect(s.key, static_cast<int>(creates), static_cast<int>(deletes));
  Status first_error;
  for (size_t i = 0; i < creates; ++i) {
    json pod = new_daemon_pod(s.ds, create_on_nodes[i], s.hash);
    auto created = client::create(ctx_.client, client::resources::kPods, namespace_of(s.ds), pod);
    if (created.is_ok()) {
      ctx_.events.record(s.ds, "Normal", "SuccessfulCreate",
                         "Created pod: " + name_of(created.value()), kDaemonSetSource);
      continue;
    }
    // This one and the rest of the round will not be observed.
    expectations_.lower(s.key, static_cast<int>(creates - i), 0);
    ctx_.events.record(s.ds, "Warning", "FailedCreate",
                       "Error creating: " + created.status().message(), kDaemonSetSource);
    first_error = created.status();
    break;
  }
  std::string ns = namespace_of(s.ds);
  for (size_t i = 0; i < deletes; ++i) {
    auto pod = pods_.get(ns + "/" + delete_pods[i]);
    client::DeleteOptions options;
    if (pod) options.precondition_uid = uid_of(*pod);
    Status removed =
        client::remove(ctx_.client, client::resources::kPods, ns, delete_pods[i], options);
    if (removed.is_ok()) {
      ctx_.events.record(s.ds, "Normal", "SuccessfulDelete", "Deleted pod: " + delete_pods[i],
                         kDaemonSetSource);
      continue;
    }
    expectations_.deletion_observed(s.key);
    if (removed.code() == Code::kNotFound) continue;
    ctx_.events.record(s.ds, "Warning", "FailedDelete", "Error deleting: " + removed.message(),
                       kDaemonSetSource);
    if (first_error.is_ok()) first_error = removed;
  }
  return first_error;
}

Status DaemonSetController::update_status(Sync& s) {
  int64_t desired = 0, current = 0, misscheduled = 0, ready = 0, available = 0, updated = 0;
  bool recheck = false;
  for (const auto& node : s.nodes) {
    Placement place = placement(s.ds, *node);
    std::vector<json> live;
    if (auto found = s.node_pods.find(name_of(*node)); found != s.node_pods.end()) {
      for (const auto& pod : found->second) {
        if (!being_deleted(pod)) live.push_back(pod);
      }
    }
    if (!place.should_run) {
      if (!live.empty()) ++misscheduled;
      continue;
    }
    ++desired;
    if (live.empty()) continue;
    ++current;
    sort_by_age(live);
    const json& pod = live.front();
    if (pod_ready(pod)) {
      ++ready;
      if (pod_available(pod, s.min_ready, s.now)) {
        ++available;
      } else {
        recheck = true;
      }
    }
    if (hash_of(pod) == s.hash) ++updated;
  }
  json status = s.ds.value("status", json::object());
  json before = status;
  status["desiredNumberScheduled"] = desired;
  status["currentNumberScheduled"] = current;
  status["numberMisscheduled"] = misscheduled;
  status["numberReady"] = ready;
  status["updatedNumberScheduled"] = updated;
  status["numberAvailable"] = available;
  status["numberUnavailable"] = desired - available;
  status["observedGeneration"] = s.ds["metadata"].value("generation", int64_t{1});
  if (s.collision_count > 0) status["collisionCount"] = s.collision_count;
  for (const char* omitted : {"updatedNumberScheduled", "numberAvailable", "numberUnavailable"}) {
    if (status[omitted] == 0) status.erase(omitted);
  }
  if (recheck) enqueue_after(s.key, std::chrono::seconds(s.min_ready));
  if (status == before) return Status::ok();
  json updated_ds = s.ds;
  updated_ds["status"] = status;
  auto written = client::update(ctx_.client, client::resources::kDaemonSets, updated_ds, "status");
  if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  return Status::ok();
}

}  // namespace k3c::controllers

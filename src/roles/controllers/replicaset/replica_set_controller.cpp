#include "roles/controllers/replicaset/replica_set_controller.h"

#include <algorithm>

#include "api/json_fields.h"
#include "api/object_selectors.h"
#include "core/ids.h"
#include "roles/controllers/common/claim.h"
#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/common/parallel_calls.h"

namespace k3c::controllers {

ReplicaFlavour replica_set_flavour() {
  return {client::resources::kReplicaSets, "apps/v1", "ReplicaSet", false};
}
ReplicaFlavour replication_controller_flavour() {
  return {client::resources::kReplicationControllers, "v1", "ReplicationController", true};
}

namespace {

constexpr int kBurst = 500;       // pods created or deleted per reconcile, as upstream
constexpr int kMaxParallel = 32;  // requests in flight in one slow-start batch
// How long a call thread waits for the next batch before it ends.
constexpr auto kCallThreadLife = std::chrono::seconds(5);
// Pod changes that only move an owner's counts (a binding, a status write, a creation its
// round still waits on others for) are synced together, at most once per period per owner,
// as upstream's job and endpoint-slice controllers batch theirs: a sync reads all the owner's
// pods, and a 10,000-pod ReplicaSet synced on every pod event kept a quarter of a core busy.
// What needs acting on at once is not delayed: the creation that completes a round,
// deletions, orphans to adopt, pods changing owner.
constexpr auto kPodBatchPeriod = std::chrono::milliseconds(100);

// Members are read in place (api::member): value("spec", ...) would copy the subtree.
int64_t replicas_of(const json& owner) {
  const json& r = api::member(api::member(owner, "spec"), "replicas");
  return r.is_number_integer() ? r.get<int64_t>() : 1;
}

// What upstream's ActivePodsWithRanks compares, read once per pod in place (a tree or a cached
// document): a pod that sorts first is deleted first. The views point into the pod.
struct DeletionRank {
  bool bound = false;
  int phase = 0;  // Pending (or none) 0, Unknown 1, others 2
  bool ready = false;
  std::string_view ready_since;  // the Ready condition's lastTransitionTime when it is True
  int64_t restarts = 0;          // the most of any container
  std::string_view created;
};

template <typename J>
DeletionRank deletion_rank(const J& pod) {
  DeletionRank r;
  r.bound = !member_text(member_or_null(pod, "spec"), "nodeName").empty();
  const auto& status = member_or_null(pod, "status");
  std::string_view phase = member_text(status, "phase");
  r.phase = phase == "Pending" || phase.empty() ? 0 : phase == "Unknown" ? 1 : 2;
  ConditionRead ready = condition_read(pod, "Ready");
  r.ready = ready.status == "True";
  if (r.ready) r.ready_since = ready.last_transition;
  const auto& containers = member_or_null(status, "containerStatuses");
  if (containers.is_array()) {
    for (const auto& c : containers) {
      const auto& n = member_or_null(c, "restartCount");
      if (n.is_number_integer()) r.restarts = std::max(r.restarts, n.template get<int64_t>());
    }
  }
  r.created = meta_text(pod, "creationTimestamp");
  return r;
}

bool deleted_before(const DeletionRank& a, const DeletionRank& b) {
  if (a.bound != b.bound) return !a.bound;
  if (a.phase != b.phase) return a.phase < b.phase;
  if (a.ready != b.ready) return !a.ready;
  if (a.ready_since != b.ready_since) return a.ready_since > b.ready_since;  // ready more recently
  if (a.restarts != b.restarts) return a.restarts > b.restarts;
  return a.created > b.created;
}

// The order in which `pods` would be deleted, as indexes into it.
template <typename Pods, typename Read>
std::vector<size_t> deletion_order(const Pods& pods, Read read) {
  std::vector<DeletionRank> ranks;
  ranks.reserve(pods.size());
  for (const auto& pod : pods) ranks.push_back(read(pod));
  std::vector<size_t> order(pods.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return deleted_before(ranks[a], ranks[b]); });
  return order;
}

// Whether `now` differs from `old` only in what a status write changes: status, the
// resourceVersion and managedFields.
bool status_written_only(const json& old, const json& now) {
  if (api::member(old, "spec") != api::member(now, "spec")) return false;
  const json& a = api::member(old, "metadata");
  const json& b = api::member(now, "metadata");
  for (const char* field : {"generation", "labels", "annotations", "ownerReferences", "finalizers",
                            "deletionTimestamp", "uid"}) {
    if (api::member(a, field) != api::member(b, field)) return false;
  }
  return true;
}

}  // namespace

ReplicaSetController::ReplicaSetController(ControllerContext& ctx, ReplicaFlavour flavour)
    : Controller(flavour.resource.plural == "replicasets" ? "replicaset" : "replicationcontroller"),
      ctx_(ctx),
      flavour_(std::move(flavour)),
      event_source_(flavour_.map_selector ? "replication-controller" : "replicaset-controller"),
      owners_(ctx.informers.informer(flavour_.resource)),
      pods_(ctx.informers.informer(client::resources::kPods)),
      expectations_(ctx.clock),
      calls_(flavour_.resource.plural == "replicasets" ? "rs-calls" : "rc-calls", kMaxParallel,
             kCallThreadLife) {
  index_by_controller(pods_);
  auto owner_changed = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  // An owner's own status write (each sync that moves its counts makes one) only moves
  // counts too: batched as the pods' changes. Anything else is synced at once.
  auto owner_updated = [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
    if (status_written_only(*old, *now)) {
      enqueue_after(client::key_of(*now), kPodBatchPeriod);
    } else {
      enqueue(client::key_of(*now));
    }
  };
  owners_.add_handler({owner_changed, owner_updated, [this](const client::ObjectPtr& o) {
                         expectations_.forget(client::key_of(*o));
                       }});
  pods_.add_handler(
      {[this](const client::ObjectPtr& pod) {
         const json* ref = controller_ref(*pod);
         if (!ref || ref->value("kind", "") != flavour_.kind) return pod_changed(pod);
         const std::string key = namespace_of(*pod) + "/" + ref->value("name", "");
         expectations_.creation_observed(key);
         // The creation that completes the owner's round is synced at once (the next round
         // waits on it); the others only move its counts.
         if (expectations_.satisfied(key)) {
           enqueue(key);
         } else {
           enqueue_after(key, kPodBatchPeriod);
         }
       },
       [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
         const json* a = controller_ref(*old);
         const json* b = controller_ref(*now);
         if (a && (!b || *a != *b)) {
           enqueue_owner_of(*old);
           return pod_changed(now);
         }
         if (!b) return pod_changed(now);  // an orphan: adoption goes at once
         // Same owner: a binding, a status write, a deletion begun; batched.
         if (b->value("kind", "") == flavour_.kind)
           enqueue_after(namespace_of(*now) + "/" + b->value("name", ""), kPodBatchPeriod);
       },
       [this](const client::ObjectPtr& pod) {
         if (const json* ref = controller_ref(*pod);
             ref && ref->value("kind", "") == flavour_.kind) {
           expectations_.deletion_observed(namespace_of(*pod) + "/" + ref->value("name", ""));
         }
         enqueue_owner_of(*pod);
       }});
}

void ReplicaSetController::enqueue_owner_of(const json& pod) {
  const json* ref = controller_ref(pod);
  if (!ref || ref->value("kind", "") != flavour_.kind) return;
  enqueue(namespace_of(pod) + "/" + ref->value("name", ""));
}

void ReplicaSetController::pod_changed(const client::ObjectPtr& pod) {
  if (controller_ref(*pod)) return enqueue_owner_of(*pod);
  // An orphan: every owner whose selector matches may adopt it.
  for (const auto& owner : owners_.in_namespace(namespace_of(*pod))) {
    auto selector = selector_of(*owner);
    if (selector && api::selects(*selector, *pod)) enqueue(client::key_of(*owner));
  }
}

std::optional<LabelSelector> ReplicaSetController::selector_of(const json& owner) const {
  const json& spec = api::member(owner, "spec");
  const json& selector = api::member(spec, "selector");
  if (flavour_.map_selector) {
    // An RC without a selector selects its template's labels (defaulted by the API).
    static const json kNone = json::object();
    return api::map_selector_of(selector.is_null() ? kNone : selector);
  }
  return api::label_selector_of(selector);
}

Status ReplicaSetController::reconcile(const std::string& key) {
  auto owner = owners_.get(key);
  if (!owner) {
    expectations_.forget(key);
    return Status::ok();
  }
  // Expectations first, as upstream: a creation observed between reading the pods and this
  // check would count as seen while the pods read lack it, and the set would create it twice
  // (10,006 pods for 10,000 replicas, now and then, in bench/hollow_nodes.py).
  const bool satisfied = expectations_.satisfied(key);
  ASSIGN_OR_RETURN(auto owned, claim_pods(*owner));
  CachedPods active;
  for (auto& pod : owned) {
    if (read_cached(pod, [](const auto& p) { return pod_counts_active(p); }))
      active.push_back(std::move(pod));
  }
  Status managed;
  if (satisfied && !being_deleted(*owner)) {
    managed = manage(key, *owner, active);
  }
  RETURN_IF_ERROR(update_status(*owner, active, managed));
  return managed;
}

Result<ReplicaSetController::CachedPods> ReplicaSetController::claim_pods(const json& owner) {
  return claim_cached(ctx_.client, {client::resources::kPods, flavour_.api_version, flavour_.kind},
                      owner, selector_of(owner), pods_);
}

void ReplicaSetController::rank_for_deletion(std::vector<client::ObjectPtr>& pods) {
  std::vector<client::ObjectPtr> ranked;
  ranked.reserve(pods.size());
  for (size_t i : deletion_order(pods, [](const auto& pod) { return deletion_rank(*pod); }))
    ranked.push_back(pods[i]);
  pods = std::move(ranked);
}

Status ReplicaSetController::manage(const std::string& key, const json& owner,
                                    const CachedPods& active) {
  int64_t diff = static_cast<int64_t>(active.size()) - replicas_of(owner);
  if (diff < 0) {
    return create_pods(key, owner, static_cast<int>(std::min<int64_t>(-diff, kBurst)));
  }
  if (diff == 0) return Status::ok();
  int count = static_cast<int>(std::min<int64_t>(diff, kBurst));
  // Ranked on the cached documents: only the victims become trees (a tree of every pod
  // would be ~13 kB each at once).
  CachedPods chosen;
  for (size_t i : deletion_order(active, [](const auto& pod) {
         return read_cached(pod, [](const auto& p) { return deletion_rank(p); });
       })) {
    if (chosen.size() == static_cast<size_t>(count)) break;
    chosen.push_back(active[i]);
  }
  std::vector<client::ObjectPtr> victims = pods_.trees_of(chosen);
  expectations_.expect(key, 0, count);
  Status first_error;
  for (const auto& pod : victims) {
    client::DeleteOptions options;
    options.precondition_uid = uid_of(*pod);
    Status s = client::remove(ctx_.client, client::resources::kPods, namespace_of(*pod),
                              name_of(*pod), options);
    if (s.is_ok()) {
      ctx_.events.record(owner, "Normal", "SuccessfulDelete", "Deleted pod: " + name_of(*pod),
                         event_source_);
      continue;
    }
    expectations_.deletion_observed(key);  // will not be observed
    if (s.code() == Code::kNotFound) continue;
    ctx_.events.record(owner, "Warning", "FailedDelete", "Error deleting: " + s.message(),
                       event_source_);
    if (first_error.is_ok()) first_error = s;
  }
  return first_error;
}

Status ReplicaSetController::create_pods(const std::string& key, const json& owner, int count) {
  json pod = pod_from_template(owner.value("spec", json::object()).value("template", json()), owner,
                               flavour_.api_version, flavour_.kind);
  pod["metadata"]["generateName"] = name_of(owner) + "-";
  expectations_.expect(key, count, 0);
  // Slow start as upstream: batches of 1, 2, 4, ... so a pod spec the API refuses costs one
  // request, not hundreds.
  int done = 0;
  for (int batch = 1; done < count; batch = std::min(batch * 2, kMaxParallel)) {
    int n = std::min(batch, count - done);
    auto results = parallel_calls<Result<json>>(calls_, n, [&](size_t) {
      return client::create(ctx_.client, client::resources::kPods, namespace_of(owner), pod);
    });
    Status failed;
    for (auto& created : results) {
      if (created.is_ok()) {
        ctx_.events.record(owner, "Normal", "SuccessfulCreate", "Created pod: " + name_of(*created),
                           event_source_);
      } else {
        expectations_.creation_observed(key);
        if (failed.is_ok()) failed = created.status();
      }
    }
    done += n;
    if (!failed.is_ok()) {
      // The rest of this round is skipped: no longer expected.
      expectations_.lower(key, count - done, 0);
      ctx_.events.record(owner, "Warning", "FailedCreate", "Error creating: " + failed.message(),
                         event_source_);
      return failed;
    }
  }
  return Status::ok();
}

Status ReplicaSetController::update_status(const json& owner, const CachedPods& active,
                                           const Status& manage_error) {
  const json& spec = api::member(owner, "spec");
  const json& min_ready_member = api::member(spec, "minReadySeconds");
  int64_t min_ready = min_ready_member.is_number_integer() ? min_ready_member.get<int64_t>() : 0;
  // A pod is fully labeled when it carries every label of the template (none: every pod).
  const json& template_meta = api::member(api::member(spec, "template"), "metadata");
  auto template_labels = api::map_selector_of(
      template_meta.is_object() ? template_meta.value("labels", json::object()) : json::object());
  auto now = ctx_.clock.wall_now();
  int64_t fully_labeled = 0, ready = 0, available = 0;
  std::optional<std::chrono::seconds> recheck;
  for (const auto& cached : active) {
    read_cached(cached, [&](const auto& pod) {
      if (!template_labels || api::selects(*template_labels, pod)) ++fully_labeled;
      if (!pod_counts_ready(pod)) return;
      ++ready;
      if (pod_counts_available(pod, min_ready, now)) {
        ++available;
      } else {
        recheck = std::chrono::seconds(min_ready);
      }
    });
  }
  json status = owner.value("status", json::object());
  json old_status = status;
  status["replicas"] = static_cast<int64_t>(active.size());
  status["fullyLabeledReplicas"] = fully_labeled;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = available;
  status["observedGeneration"] = owner["metadata"].value("generation", int64_t{1});
  for (const char* zero_omitted : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    if (status[zero_omitted] == 0) status.erase(zero_omitted);
  }
  if (!manage_error.is_ok() && manage_error.code() != Code::kConflict) {
    set_condition(status, "ReplicaFailure", "True", "FailedCreate", manage_error.message(),
                  ctx_.now());
  } else if (manage_error.is_ok() && status.contains("conditions")) {
    json kept = json::array();
    for (const auto& c : status["conditions"]) {
      if (c.value("type", "") != "ReplicaFailure") kept.push_back(c);
    }
    status["conditions"] = kept;
    if (kept.empty()) status.erase("conditions");
  }
  if (recheck) enqueue_after(client::key_of(owner), *recheck);
  if (status == old_status) return Status::ok();
  json updated = owner;
  updated["status"] = status;
  auto written = client::update(ctx_.client, flavour_.resource, updated, "status");
  if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  return Status::ok();
}

}  // namespace k3c::controllers

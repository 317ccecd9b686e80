// The StatefulSet controller's wiring and reconcile: claims pods and revisions, settles the
// update revision, runs the sync (stateful_set_sync.cpp), writes status, trims history.
#include "roles/controllers/statefulset/stateful_set_controller.h"

#include <algorithm>

#include "api/object_selectors.h"
#include "roles/controllers/common/claim.h"
#include "roles/controllers/common/controller_history.h"
#include "roles/controllers/statefulset/stateful_set_sync.h"

namespace k3c::controllers {

StatefulSetController::StatefulSetController(ControllerContext& ctx)
    : Controller("statefulset"),
      ctx_(ctx),
      sets_(ctx.informers.informer(client::resources::kStatefulSets)),
      pods_(ctx.informers.informer(client::resources::kPods)),
      revisions_(ctx.informers.informer(client::resources::kControllerRevisions)),
      claims_(ctx.informers.informer(client::resources::kPersistentVolumeClaims)) {
  index_by_controller(pods_);
  index_by_controller(revisions_);
  auto changed = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  sets_.add_handler({changed, [=](auto&, auto& o) { changed(o); }, nullptr});
  pods_.add_handler({[this](const client::ObjectPtr& pod) { pod_changed(pod); },
                     [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                       const json* a = controller_ref(*old);
                       const json* b = controller_ref(*now);
                       if (a && (!b || *a != *b)) enqueue_owner_of(*old);
                       pod_changed(now);
                     },
                     [this](const client::ObjectPtr& pod) { enqueue_owner_of(*pod); }});
}

void StatefulSetController::enqueue_owner_of(const json& object) {
  const json* ref = controller_ref(object);
  if (!ref || ref->value("kind", "") != "StatefulSet") return;
  enqueue(namespace_of(object) + "/" + ref->value("name", ""));
}

void StatefulSetController::pod_changed(const client::ObjectPtr& pod) {
  if (controller_ref(*pod)) return enqueue_owner_of(*pod);
  // An orphan: the set it is named after may adopt it.
  Labels labels = api::labels_of(*pod);
  for (const auto& set : sets_.in_namespace(namespace_of(*pod))) {
    auto selector =
        api::label_selector_of(set->value("spec", json::object()).value("selector", json()));
    if (selector && selector->matches(labels) && is_member(*set, *pod))
      enqueue(client::key_of(*set));
  }
}

namespace {

// The pod of `ordinal` at the revision it should have when (re)created: below the partition
// the current revision, from it on the update revision (upstream's newVersionedStatefulSetPod).
json versioned_pod(const StatefulSetSync& s, int64_t ordinal) {
  const json& strategy =
      s.current_set.value("spec", json::object()).value("updateStrategy", json::object());
  int64_t start = ordinal_range(s.set).start;
  bool current = false;
  if (strategy.value("type", "RollingUpdate") == "RollingUpdate") {
    auto rolling = strategy.find("rollingUpdate");
    if (rolling == strategy.end() || !rolling->is_object()) {
      current = ordinal <
                start + s.set.value("status", json::object()).value("currentReplicas", int64_t{0});
    } else {
      current = ordinal < start + rolling->value("partition", int64_t{0});
    }
  }
  return current ? new_stateful_pod(s.current_set, ordinal, s.current_revision)
                 : new_stateful_pod(s.update_set, ordinal, s.update_revision);
}

}  // namespace

Status StatefulSetController::reconcile(const std::string& key) {
  auto cached = sets_.get(key);
  if (!cached) return Status::ok();
  Sync s;
  s.set = *cached;
  s.now = ctx_.clock.wall_now();
  const json& spec = s.set.value("spec", json::object());
  const json& status = s.set.value("status", json::object());
  HistoryOwner owner{s.set, "apps/v1", "StatefulSet"};
  ASSIGN_OR_RETURN(auto revisions, owned_revisions(ctx_.client, revisions_, owner));
  ClaimTarget target{client::resources::kPods, "apps/v1", "StatefulSet",
                     [&](const json& pod) { return is_member(s.set, pod); }};
  ASSIGN_OR_RETURN(auto pods, claim(ctx_.client, target, s.set,
                                    api::label_selector_of(spec.value("selector", json())), pods_));
  ASSIGN_OR_RETURN(auto update, sync_update_revision(ctx_.client, owner, std::move(revisions),
                                                     status.value("collisionCount", int64_t{0})));
  s.collision_count = update.collision_count;
  s.update_revision = name_of(update.revision);
  json current_revision = update.revision;
  for (const auto& r : update.revisions) {
    if (name_of(r) == status.value("currentRevision", "")) current_revision = r;
  }
  s.current_revision = name_of(current_revision);
  s.current_set = apply_revision(s.set, current_revision);
  s.update_set = apply_revision(s.set, update.revision);
  s.monotonic = spec.value("podManagementPolicy", "OrderedReady") != "Parallel";
  s.min_ready = spec.value("minReadySeconds", int64_t{0});

  // Pods in the ordinal range are replicas (a missing one is made, not yet created);
  // pods with ordinals outside it are condemned, highest first.
  OrdinalRange range = ordinal_range(s.set);
  s.replicas.assign(static_cast<size_t>(range.replicas), json());
  for (const auto& pod : pods) {
    int64_t ordinal = parse_pod_name(name_of(*pod)).ordinal;
    if (range.contains(ordinal)) {
      s.replicas[static_cast<size_t>(ordinal - range.start)] = *pod;
    } else if (ordinal >= 0) {
      s.condemned.push_back(*pod);
    }
  }
  for (size_t i = 0; i < s.replicas.size(); ++i) {
    if (s.replicas[i].is_null()) s.replicas[i] = versioned_pod(s, range.start + int64_t(i));
  }
  std::sort(s.condemned.begin(), s.condemned.end(), [](const json& a, const json& b) {
    return parse_pod_name(name_of(a)).ordinal > parse_pod_name(name_of(b)).ordinal;
  });

  json new_status = compute_status(s);
  Status synced = being_deleted(s.set) ? Status::ok() : update_set(s);
  RETURN_IF_ERROR(write_status(s, new_status));
  RETURN_IF_ERROR(synced);
  if (s.recheck) enqueue_after(key, *s.recheck);
  std::set<std::string> in_use = {s.current_revision, s.update_revision};
  for (const auto& pod : pods) {
    in_use.insert(pod->value("metadata", json::object())
                      .value("labels", json::object())
                      .value(kRevisionLabel, ""));
  }
  return truncate_history(ctx_.client, update.revisions, in_use,
                          spec.value("revisionHistoryLimit", int64_t{10}));
}

json StatefulSetController::compute_status(Sync& s) {
  int64_t replicas = 0, ready = 0, available = 0, current = 0, updated = 0;
  auto count = [&](const json& pod) {
    if (!is_created(pod)) return;
    ++replicas;
    if (running_and_ready(pod)) {
      ++ready;
      if (pod_available(pod, s.min_ready, s.now)) {
        ++available;
      } else {
        s.recheck = std::chrono::seconds(s.min_ready);
      }
    }
    if (being_deleted(pod)) return;
    std::string revision =
        pod["metadata"].value("labels", json::object()).value(kRevisionLabel, "");
    if (revision == s.current_revision) ++current;
    if (revision == s.update_revision) ++updated;
  };
  for (const auto& pod : s.replicas) count(pod);
  for (const auto& pod : s.condemned) count(pod);
  json status = s.set.value("status", json::object());
  std::string current_revision = s.current_revision;
  // A rolling update is complete once every pod runs the update revision and is ready.
  std::string type = s.set["spec"].value("updateStrategy", json::object()).value("type", "");
  if (type != "OnDelete" && updated == replicas && ready == replicas) {
    current = updated;
    current_revision = s.update_revision;
  }
  status["observedGeneration"] = s.set["metadata"].value("generation", int64_t{1});
  status["replicas"] = replicas;
  status["readyReplicas"] = ready;
  status["currentReplicas"] = current;
  status["updatedReplicas"] = updated;
  status["availableReplicas"] = available;
  status["currentRevision"] = current_revision;
  status["updateRevision"] = s.update_revision;
  status["collisionCount"] = s.collision_count;
  for (const char* omitted : {"readyReplicas", "currentReplicas", "updatedReplicas"}) {
    if (status[omitted] == 0) status.erase(omitted);
  }
  return status;
}

Status StatefulSetController::write_status(const Sync& s, const json& status) {
  if (s.set.value("status", json::object()) == status) return Status::ok();
  json updated = s.set;
  updated["status"] = status;
  auto written = client::update(ctx_.client, client::resources::kStatefulSets, updated, "status");
  if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  return Status::ok();
}

}  // namespace k3c::controllers

// The StatefulSet sync, as upstream's updateStatefulSet: replicas in ordinal order (create
// what is missing, replace finished pods, keep identity and claims), then condemned pods
// highest first, then the rolling update. OrderedReady stops at the first pod that is not
// Running and Ready (and available); Parallel goes on.
#include "roles/controllers/statefulset/stateful_set_sync.h"

#include <algorithm>

#include "roles/controllers/common/metadata_writes.h"
#include "roles/controllers/deployment/rollout_math.h"
#include "roles/controllers/statefulset/stateful_set_controller.h"

namespace k3c::controllers {

namespace {

constexpr const char* kStatefulSetSource = "statefulset-controller";

int64_t ordinal_of(const json& pod) { return parse_pod_name(name_of(pod)).ordinal; }

std::string revision_of_pod(const json& pod) {
  return pod.value("metadata", json::object())
      .value("labels", json::object())
      .value(kRevisionLabel, "");
}

}  // namespace

Status StatefulSetController::update_set(Sync& s) {
  // The unhealthy pod with the lowest ordinal may be removed even while others wait.
  int64_t lowest = -1;
  auto consider = [&](const json& pod) {
    int64_t ordinal = ordinal_of(pod);
    if (!is_healthy(pod) && (lowest < 0 || ordinal < lowest)) {
      lowest = ordinal;
      s.first_unhealthy = name_of(pod);
    }
  };
  for (const auto& pod : s.replicas) consider(pod);
  for (const auto& pod : s.condemned) consider(pod);

  for (size_t i = 0; i < s.replicas.size(); ++i) {
    ASSIGN_OR_RETURN(bool blocked, process_replica(s, i));
    if (blocked && s.monotonic) return Status::ok();
  }
  // Condemned pods' claims first follow the scale-down policy, so that deleting the pod
  // takes them along when whenScaled is Delete.
  for (const auto& pod : s.condemned) {
    if (!claims_follow_policy(s, pod)) RETURN_IF_ERROR(update_claim_owners(s, pod));
  }
  for (size_t i = 0; i < s.condemned.size(); ++i) {
    ASSIGN_OR_RETURN(bool blocked, process_condemned(s, i));
    if (blocked && s.monotonic) return Status::ok();
  }
  std::string type = s.set["spec"].value("updateStrategy", json::object()).value("type", "");
  if (type == "OnDelete") return Status::ok();  // pods change when users delete them
  return rolling_update(s);
}

Result<bool> StatefulSetController::process_replica(Sync& s, size_t i) {
  const json& pod = s.replicas[i];
  std::string phase = pod_phase(pod);
  // A pod that finished is replaced: deleted now, made again on a later round.
  if (phase == "Failed" || phase == "Succeeded") {
    if (!being_deleted(pod)) RETURN_IF_ERROR(delete_pod(s, pod));
    return true;
  }
  if (!is_created(pod)) {
    // Its claims still belong to a previous pod of this name being removed: wait.
    if (claims_stale(s, pod)) return true;
    RETURN_IF_ERROR(create_pod(s, pod));
    return true;
  }
  if (phase == "Pending") RETURN_IF_ERROR(create_claims(s, pod));
  if (being_deleted(pod)) return true;
  if (!running_and_ready(pod)) return true;
  if (!pod_available(pod, s.min_ready, s.now)) return true;
  if (identity_matches(s.set, pod) && storage_matches(s.set, pod) && claims_follow_policy(s, pod))
    return false;
  RETURN_IF_ERROR(update_pod(s, pod));
  return false;
}

Result<bool> StatefulSetController::process_condemned(Sync& s, size_t i) {
  const json& pod = s.condemned[i];
  if (being_deleted(pod)) return true;  // wait for it to go
  // OrderedReady removes an unhealthy pod only if it is the first unhealthy one.
  if (s.monotonic && name_of(pod) != s.first_unhealthy &&
      (!running_and_ready(pod) || !pod_available(pod, s.min_ready, s.now)))
    return true;
  RETURN_IF_ERROR(delete_pod(s, pod));
  return true;
}

// Pods not at the update revision are deleted from the highest ordinal down to the
// partition, at most maxUnavailable (default 1) of the set's pods down at once; the replica
// loop then makes them again at the update revision.
Status StatefulSetController::rolling_update(Sync& s) {
  const json& rolling =
      s.set["spec"].value("updateStrategy", json::object()).value("rollingUpdate", json::object());
  int64_t replicas = static_cast<int64_t>(s.replicas.size());
  int64_t max_unavailable =
      std::max<int64_t>(scaled_value(rolling.value("maxUnavailable", json(1)), replicas, false), 1);
  int64_t partition = std::max<int64_t>(rolling.value("partition", int64_t{0}), 0);
  int64_t unavailable = 0;
  for (const auto& pod : s.replicas) {
    if (!is_healthy(pod) || !pod_available(pod, s.min_ready, s.now)) ++unavailable;
  }
  int64_t budget = max_unavailable - unavailable;
  for (int64_t i = replicas - 1; i >= partition && budget > 0; --i) {
    const json& pod = s.replicas[static_cast<size_t>(i)];
    if (revision_of_pod(pod) == s.update_revision || being_deleted(pod) || !is_created(pod))
      continue;
    RETURN_IF_ERROR(delete_pod(s, pod));
    --budget;
  }
  return Status::ok();
}

Status StatefulSetController::create_pod(Sync& s, const json& pod) {
  RETURN_IF_ERROR(create_claims(s, pod));
  auto created = client::create(ctx_.client, client::resources::kPods, namespace_of(s.set), pod);
  if (created.is_ok()) {
    ctx_.events.record(
        s.set, "Normal", "SuccessfulCreate",
        "create Pod " + name_of(pod) + " in StatefulSet " + name_of(s.set) + " successful",
        kStatefulSetSource);
    // Scaled-away pods own their claims (whenScaled Delete) only once they have a uid.
    return Status::ok();
  }
  // Already there: the cache has not seen it yet.
  if (created.status().code() == Code::kAlreadyExists) return Status::ok();
  ctx_.events.record(s.set, "Warning", "FailedCreate",
                     "create Pod " + name_of(pod) + " in StatefulSet " + name_of(s.set) +
                         " failed error: " + created.status().message(),
                     kStatefulSetSource);
  return created.status();
}

Status StatefulSetController::delete_pod(Sync& s, const json& pod) {
  client::DeleteOptions options;
  options.precondition_uid = uid_of(pod);
  Status removed = client::remove(ctx_.client, client::resources::kPods, namespace_of(pod),
                                  name_of(pod), options);
  if (removed.code() == Code::kNotFound) return Status::ok();
  std::string what = "delete Pod " + name_of(pod) + " in StatefulSet " + name_of(s.set);
  if (!removed.is_ok()) {
    ctx_.events.record(s.set, "Warning", "FailedDelete",
                       what + " failed error: " + removed.message(), kStatefulSetSource);
    return removed;
  }
  ctx_.events.record(s.set, "Normal", "SuccessfulDelete", what + " successful", kStatefulSetSource);
  return Status::ok();
}

Status StatefulSetController::create_claims(Sync& s, const json& pod) {
  for (json claim : claims_for(s.set, ordinal_of(pod))) {
    auto existing = claims_.get(namespace_of(claim) + "/" + name_of(claim));
    if (existing) {
      if (being_deleted(*existing))
        return error(Code::kConflict, "pvc " + name_of(claim) + " is being deleted");
      continue;
    }
    json refs = claim_owner_refs(s.set, pod, claim);
    if (!refs.empty()) claim["metadata"]["ownerReferences"] = refs;
    auto created = client::create(ctx_.client, client::resources::kPersistentVolumeClaims,
                                  namespace_of(s.set), claim);
    std::string what = "create Claim " + name_of(claim) + " Pod " + name_of(pod) +
                       " in StatefulSet " + name_of(s.set);
    if (created.is_ok()) {
      ctx_.events.record(s.set, "Normal", "SuccessfulCreate", what + " success",
                         kStatefulSetSource);
    } else if (created.status().code() != Code::kAlreadyExists) {
      ctx_.events.record(s.set, "Warning", "FailedCreate",
                         what + " failed error: " + created.status().message(), kStatefulSetSource);
      return created.status();
    }
  }
  return Status::ok();
}

bool StatefulSetController::claims_stale(const Sync& s, const json& pod) const {
  for (const json& claim : claims_for(s.set, ordinal_of(pod))) {
    auto existing = claims_.get(namespace_of(claim) + "/" + name_of(claim));
    if (!existing) continue;
    if (being_deleted(*existing)) return true;
    for (const json& ref : owner_refs(*existing)) {
      if (ref.value("kind", "") == "Pod" && ref.value("name", "") == name_of(pod) &&
          ref.value("uid", "") != uid_of(pod))
        return true;
    }
  }
  return false;
}

bool StatefulSetController::claims_follow_policy(const Sync& s, const json& pod) const {
  for (const json& claim : claims_for(s.set, ordinal_of(pod))) {
    auto existing = claims_.get(namespace_of(claim) + "/" + name_of(claim));
    if (existing && owner_refs(*existing) != claim_owner_refs(s.set, pod, *existing)) return false;
  }
  return true;
}

Status StatefulSetController::update_claim_owners(Sync& s, const json& pod) {
  for (const json& claim : claims_for(s.set, ordinal_of(pod))) {
    auto existing = claims_.get(namespace_of(claim) + "/" + name_of(claim));
    if (!existing) continue;
    json refs = claim_owner_refs(s.set, pod, *existing);
    if (refs == owner_refs(*existing)) continue;
    json updated = *existing;
    if (refs.empty()) {
      updated["metadata"].erase("ownerReferences");
    } else {
      updated["metadata"]["ownerReferences"] = refs;
    }
    auto written = client::update(ctx_.client, client::resources::kPersistentVolumeClaims, updated);
    if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  }
  return Status::ok();
}

// A pod that lost its identity labels gets them back, a missing claim is made, and the
// claims' owners follow the retention policy (a pod's spec cannot change, so its volumes
// are not rewritten).
Status StatefulSetController::update_pod(Sync& s, const json& pod) {
  if (!storage_matches(s.set, pod)) RETURN_IF_ERROR(create_claims(s, pod));
  RETURN_IF_ERROR(update_claim_owners(s, pod));
  if (identity_matches(s.set, pod)) return Status::ok();
  auto written = patch_metadata(ctx_.client, client::resources::kPods, pod,
                                {{"labels", with_identity(s.set, pod)["metadata"]["labels"]}});
  if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  return Status::ok();
}

}  // namespace k3c::controllers

#include "roles/controllers/deployment/deployment_controller.h"

#include <algorithm>

#include "api/object_selectors.h"
#include "core/ids.h"
#include "roles/controllers/common/claim.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/deployment/rollout_math.h"

namespace k3c::controllers {

namespace {

constexpr const char* kRevision = "deployment.kubernetes.io/revision";
constexpr const char* kDesired = "deployment.kubernetes.io/desired-replicas";
constexpr const char* kMax = "deployment.kubernetes.io/max-replicas";

int64_t spec_replicas(const json& o) {
  const json& spec = o.value("spec", json::object());
  auto r = spec.find("replicas");
  return r != spec.end() && r->is_number_integer() ? r->get<int64_t>() : 1;
}
int64_t status_count(const json& o, const char* field) {
  return o.value("status", json::object()).value(field, int64_t{0});
}

// Annotations the deployment passes on to its ReplicaSets (kubectl's change-cause among
// them), without the ones the controller or kubectl keeps for itself.
json copied_annotations(const json& deployment) {
  json out = json::object();
  const json& a = deployment["metadata"].value("annotations", json::object());
  for (auto it = a.begin(); it != a.end(); ++it) {
    const std::string& k = it.key();
    if (k == "kubectl.kubernetes.io/last-applied-configuration" || k == kRevision ||
        k == kDesired || k == kMax || k == "deployment.kubernetes.io/revision-history")
      continue;
    out[k] = it.value();
  }
  return out;
}

}  // namespace

struct DeploymentController::Rollout {
  json deployment;
  std::string key;
  std::vector<client::ObjectPtr> all;  // every ReplicaSet the deployment controls
  json new_rs;                         // null until found or created
  std::vector<json> old;               // oldest first
  bool created_new = false;
  bool scaled = false;
  int64_t replicas = 0;
  RolloutBounds bounds;
};

DeploymentController::DeploymentController(ControllerContext& ctx)
    : Controller("deployment"),
      ctx_(ctx),
      deployments_(ctx.informers.informer(client::resources::kDeployments)),
      replicasets_(ctx.informers.informer(client::resources::kReplicaSets)),
      pods_(ctx.informers.informer(client::resources::kPods)) {
  index_by_controller(replicasets_);
  index_by_controller(pods_);
  auto changed = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  deployments_.add_handler({changed, [=](auto&, auto& o) { changed(o); }, nullptr});
  auto rs_changed = [this](const client::ObjectPtr& rs) { enqueue_owner_of(*rs); };
  replicasets_.add_handler({rs_changed,
                            [=](auto& old, auto& now) {
                              rs_changed(old);
                              rs_changed(now);
                            },
                            rs_changed});
  // Recreate waits for the old pods to be gone.
  pods_.add_handler({nullptr, nullptr, [this](const client::ObjectPtr& pod) {
                       const json* ref = controller_ref(*pod);
                       if (!ref || ref->value("kind", "") != "ReplicaSet") return;
                       if (auto rs =
                               replicasets_.get(namespace_of(*pod) + "/" + ref->value("name", "")))
                         enqueue_owner_of(*rs);
                     }});
}

void DeploymentController::enqueue_owner_of(const json& rs) {
  const json* ref = controller_ref(rs);
  if (ref && ref->value("kind", "") == "Deployment") {
    enqueue(namespace_of(rs) + "/" + ref->value("name", ""));
    return;
  }
  if (ref) return;
  Labels labels = api::labels_of(rs);
  for (const auto& d : deployments_.in_namespace(namespace_of(rs))) {
    auto selector =
        api::label_selector_of(d->value("spec", json::object()).value("selector", json()));
    if (selector && selector->matches(labels)) enqueue(client::key_of(*d));
  }
}

Status DeploymentController::reconcile(const std::string& key) {
  auto current = deployments_.get(key);
  if (!current) return Status::ok();
  Rollout r;
  r.deployment = *current;
  r.key = key;
  r.replicas = spec_replicas(r.deployment);
  r.bounds = rollout_bounds(r.deployment);
  const json& spec = r.deployment.value("spec", json::object());
  auto selector = api::label_selector_of(spec.value("selector", json()));
  ASSIGN_OR_RETURN(r.all,
                   claim(ctx_.client, {client::resources::kReplicaSets, "apps/v1", "Deployment"},
                         r.deployment, selector, replicasets_));
  json wanted = template_without_hash(spec.value("template", json::object()));
  std::vector<json> old;
  for (const auto& rs : r.all) {
    json t = template_without_hash(rs->value("spec", json::object()).value("template", json()));
    if (r.new_rs.is_null() && t == wanted) {
      r.new_rs = *rs;
    } else {
      old.push_back(*rs);
    }
  }
  std::sort(old.begin(), old.end(), [](const json& a, const json& b) {
    if (revision_of(a) != revision_of(b)) return revision_of(a) < revision_of(b);
    return meta_str(a, "creationTimestamp") < meta_str(b, "creationTimestamp");
  });
  r.old = std::move(old);
  if (being_deleted(r.deployment)) return sync_status(r);
  if (spec.value("paused", false)) {
    RETURN_IF_ERROR(cleanup(r));
    return sync_status(r);
  }
  std::string type = spec.value("strategy", json::object()).value("type", "RollingUpdate");
  RETURN_IF_ERROR(type == "Recreate" ? recreate(r) : rolling_update(r));
  RETURN_IF_ERROR(cleanup(r));
  RETURN_IF_ERROR(set_revision(r));
  return sync_status(r);
}

Status DeploymentController::find_or_create_new(Rollout& r) {
  int64_t max_old = 0;
  for (const auto& rs : r.old) max_old = std::max(max_old, revision_of(rs));
  std::string revision = std::to_string(max_old + 1);
  if (!r.new_rs.is_null()) {
    // Found (also after `rollout undo` brought an old template back): it becomes the
    // newest revision, and carries the deployment's annotations.
    json updated = r.new_rs;
    json& annotations = updated["metadata"]["annotations"];
    if (!annotations.is_object()) annotations = json::object();
    if (revision_of(r.new_rs) <= max_old) annotations[kRevision] = revision;
    // Named first: a range-for over a temporary's items() reads freed memory.
    json copied = copied_annotations(r.deployment);
    for (auto it = copied.begin(); it != copied.end(); ++it) annotations[it.key()] = it.value();
    if (updated == r.new_rs) return Status::ok();
    ASSIGN_OR_RETURN(r.new_rs,
                     client::update(ctx_.client, client::resources::kReplicaSets, updated));
    return Status::ok();
  }
  const json& spec = r.deployment["spec"];
  int64_t collisions = r.deployment.value("status", json::object()).value("collisionCount", 0);
  json tmpl = spec.value("template", json::object());
  std::string hash = pod_template_hash(tmpl, collisions);
  tmpl["metadata"]["labels"]["pod-template-hash"] = hash;
  json selector = spec.value("selector", json::object());
  selector["matchLabels"]["pod-template-hash"] = hash;
  // RollingUpdate starts the new set at what the surge allows; Recreate at zero (scaled up
  // once the old pods are gone).
  int64_t initial = 0;
  std::string type = spec.value("strategy", json::object()).value("type", "RollingUpdate");
  if (type != "Recreate") {
    int64_t total = 0;
    for (const auto& rs : r.old) total += spec_replicas(rs);
    initial = std::clamp<int64_t>(r.replicas + r.bounds.max_surge - total, 0, r.replicas);
  }
  json annotations = copied_annotations(r.deployment);
  annotations[kRevision] = revision;
  annotations[kDesired] = std::to_string(r.replicas);
  annotations[kMax] = std::to_string(r.replicas + r.bounds.max_surge);
  json labels = tmpl["metadata"]["labels"];
  json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", name_of(r.deployment) + "-" + hash},
               {"namespace", namespace_of(r.deployment)},
               {"labels", labels},
               {"annotations", annotations},
               {"ownerReferences",
                json::array({controller_ref_to(r.deployment, "apps/v1", "Deployment")})}}},
             {"spec",
              {{"replicas", initial},
               {"minReadySeconds", spec.value("minReadySeconds", 0)},
               {"selector", selector},
               {"template", tmpl}}}};
  auto created =
      client::create(ctx_.client, client::resources::kReplicaSets, namespace_of(r.deployment), rs);
  if (!created.is_ok()) {
    if (created.status().code() == Code::kAlreadyExists) {
      // Our own set that the cache has not shown yet (same owner, same template): nothing to
      // do, the next pass finds it. Anything else is a collision.
      auto existing = client::get(ctx_.client, client::resources::kReplicaSets,
                                  namespace_of(r.deployment), name_of(rs));
      if (existing.is_ok()) {
        const json* owner = controller_ref(*existing);
        json existing_template =
            existing->value("spec", json::object()).value("template", json::object());
        if (owner && owner->value("uid", "") == uid_of(r.deployment) &&
            template_without_hash(existing_template) ==
                template_without_hash(spec.value("template", json::object()))) {
          return error(Code::kConflict, "replica set " + name_of(rs) + " not in the cache yet");
        }
      }
      // Another template hashed to this name: count the collision, the next hash differs.
      json updated = r.deployment;
      updated["status"]["collisionCount"] = collisions + 1;
      auto written =
          client::update(ctx_.client, client::resources::kDeployments, updated, "status");
      if (!written.is_ok()) return written.status();
      return error(Code::kConflict, "pod-template-hash collision; retrying");
    }
    ctx_.events.record(
        r.deployment, "Warning", "FailedCreate",
        "Failed to create new replica set \"" + name_of(rs) + "\": " + created.status().message(),
        "deployment-controller");
    return created.status();
  }
  r.new_rs = std::move(created.value());
  r.created_new = true;
  if (initial > 0) {
    ctx_.events.record(
        r.deployment, "Normal", "ScalingReplicaSet",
        "Scaled up replica set " + name_of(r.new_rs) + " to " + std::to_string(initial),
        "deployment-controller");
  }
  return Status::ok();
}

// The deployment carries its new ReplicaSet's revision (kubectl's rollout undo and
// history read it).
Status DeploymentController::set_revision(Rollout& r) {
  if (r.new_rs.is_null()) return Status::ok();
  std::string revision = std::to_string(revision_of(r.new_rs));
  if (revision == "0" || std::to_string(revision_of(r.deployment)) == revision) return Status::ok();
  json patch = {{"metadata", {{"annotations", {{kRevision, revision}}}}}};
  ASSIGN_OR_RETURN(r.deployment, client::patch(ctx_.client, client::resources::kDeployments,
                                               namespace_of(r.deployment), name_of(r.deployment),
                                               "application/merge-patch+json", patch));
  return Status::ok();
}

Status DeploymentController::scale(Rollout& r, const json& rs, int64_t replicas) {
  int64_t from = spec_replicas(rs);
  json updated = rs;
  updated["spec"]["replicas"] = replicas;
  json& annotations = updated["metadata"]["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  annotations[kDesired] = std::to_string(r.replicas);
  annotations[kMax] = std::to_string(r.replicas + r.bounds.max_surge);
  if (updated == rs) return Status::ok();
  ASSIGN_OR_RETURN(json written,
                   client::update(ctx_.client, client::resources::kReplicaSets, updated));
  if (from != replicas) {
    r.scaled = true;
    ctx_.events.record(r.deployment, "Normal", "ScalingReplicaSet",
                       std::string("Scaled ") + (replicas > from ? "up" : "down") +
                           " replica set " + name_of(rs) + " to " + std::to_string(replicas) +
                           " from " + std::to_string(from),
                       "deployment-controller");
  }
  if (!r.new_rs.is_null() && uid_of(rs) == uid_of(r.new_rs)) {
    r.new_rs = std::move(written);
  } else {
    for (auto& o : r.old) {
      if (uid_of(o) == uid_of(rs)) o = written;
    }
  }
  return Status::ok();
}

Status DeploymentController::rolling_update(Rollout& r) {
  RETURN_IF_ERROR(find_or_create_new(r));
  // Scale the new set up as far as the surge allows.
  int64_t total = spec_replicas(r.new_rs);
  for (const auto& rs : r.old) total += spec_replicas(rs);
  int64_t new_replicas = spec_replicas(r.new_rs);
  if (new_replicas > r.replicas) {
    RETURN_IF_ERROR(scale(r, r.new_rs, r.replicas));
  } else if (new_replicas < r.replicas) {
    int64_t room = r.replicas + r.bounds.max_surge - total;
    if (room > 0) {
      RETURN_IF_ERROR(scale(r, r.new_rs, new_replicas + std::min(room, r.replicas - new_replicas)));
    }
  }
  // Scale the old sets down as far as availability allows.
  int64_t old_total = 0;
  for (const auto& rs : r.old) old_total += spec_replicas(rs);
  if (old_total == 0) return Status::ok();
  int64_t all_pods = spec_replicas(r.new_rs) + old_total;
  int64_t min_available = r.replicas - r.bounds.max_unavailable;
  int64_t new_unavailable = spec_replicas(r.new_rs) - status_count(r.new_rs, "availableReplicas");
  int64_t max_scale_down = all_pods - min_available - new_unavailable;
  if (max_scale_down <= 0) return Status::ok();
  // First the old sets' unhealthy pods (they do not count towards availability)...
  int64_t cleaned = 0;
  for (auto rs : r.old) {
    if (cleaned >= max_scale_down) break;
    int64_t unhealthy = spec_replicas(rs) - status_count(rs, "availableReplicas");
    if (unhealthy <= 0) continue;
    int64_t down = std::min(unhealthy, max_scale_down - cleaned);
    RETURN_IF_ERROR(scale(r, rs, spec_replicas(rs) - down));
    cleaned += down;
  }
  // ...then available ones, down to the minimum availability.
  int64_t available = status_count(r.new_rs, "availableReplicas");
  for (const auto& rs : r.old) available += status_count(rs, "availableReplicas");
  int64_t budget = std::min(available - min_available, max_scale_down - cleaned);
  for (auto rs : r.old) {
    if (budget <= 0) break;
    int64_t replicas = spec_replicas(rs);
    if (replicas == 0) continue;
    int64_t down = std::min(replicas, budget);
    RETURN_IF_ERROR(scale(r, rs, replicas - down));
    budget -= down;
  }
  return Status::ok();
}

Status DeploymentController::recreate(Rollout& r) {
  for (auto rs : r.old) {
    if (spec_replicas(rs) != 0) RETURN_IF_ERROR(scale(r, rs, 0));
  }
  // Wait until no pod of an old set is left.
  for (const auto& rs : r.old) {
    if (status_count(rs, "replicas") > 0 || !cached_controlled_by(pods_, rs).empty())
      return Status::ok();
  }
  RETURN_IF_ERROR(find_or_create_new(r));
  if (spec_replicas(r.new_rs) != r.replicas) RETURN_IF_ERROR(scale(r, r.new_rs, r.replicas));
  return Status::ok();
}

Status DeploymentController::cleanup(Rollout& r) {
  const json& spec = r.deployment["spec"];
  int64_t limit = spec.value("revisionHistoryLimit", int64_t{10});
  std::vector<json> idle;
  for (const auto& rs : r.old) {
    if (spec_replicas(rs) == 0 && status_count(rs, "replicas") == 0 && !being_deleted(rs))
      idle.push_back(rs);
  }
  for (size_t i = 0; i + limit < idle.size(); ++i) {
    client::DeleteOptions options;
    options.precondition_uid = uid_of(idle[i]);
    Status s = client::remove(ctx_.client, client::resources::kReplicaSets, namespace_of(idle[i]),
                              name_of(idle[i]), options);
    if (!s.is_ok() && s.code() != Code::kNotFound) return s;
  }
  return Status::ok();
}

Status DeploymentController::sync_status(Rollout& r) {
  const json& spec = r.deployment["spec"];
  std::vector<json> sets = r.old;
  if (!r.new_rs.is_null()) sets.push_back(r.new_rs);
  int64_t replicas = 0, ready = 0, available = 0, old_pods = 0;
  for (const auto& rs : sets) {
    replicas += status_count(rs, "replicas");
    ready += status_count(rs, "readyReplicas");
    available += status_count(rs, "availableReplicas");
  }
  for (const auto& rs : r.old) old_pods += status_count(rs, "replicas");
  int64_t updated = r.new_rs.is_null() ? 0 : status_count(r.new_rs, "replicas");
  json status = r.deployment.value("status", json::object());
  json before = status;
  status["observedGeneration"] = r.deployment["metadata"].value("generation", int64_t{1});
  status["replicas"] = replicas;
  status["updatedReplicas"] = updated;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = available;
  status["unavailableReplicas"] = std::max<int64_t>(r.replicas - available, 0);
  for (const char* f : {"replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                        "unavailableReplicas"}) {
    if (status[f] == 0) status.erase(f);
  }
  std::string now = ctx_.now();
  if (available >= r.replicas - r.bounds.max_unavailable) {
    set_condition(status, "Available", "True", "MinimumReplicasAvailable",
                  "Deployment has minimum availability.", now, true);
  } else {
    set_condition(status, "Available", "False", "MinimumReplicasUnavailable",
                  "Deployment does not have minimum availability.", now, true);
  }
  std::string rs_name = r.new_rs.is_null() ? "" : name_of(r.new_rs);
  bool complete = !r.new_rs.is_null() && updated == r.replicas && available == r.replicas &&
                  old_pods == 0 && spec_replicas(r.new_rs) == r.replicas;
  int64_t deadline = spec.value("progressDeadlineSeconds", int64_t{600});
  if (spec.value("paused", false)) {
    set_condition(status, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", now,
                  true);
  } else if (complete) {
    set_condition(status, "Progressing", "True", "NewReplicaSetAvailable",
                  "ReplicaSet \"" + rs_name + "\" has successfully progressed.", now, true);
  } else if (r.created_new) {
    set_condition(status, "Progressing", "True", "NewReplicaSetCreated",
                  "Created new replica set \"" + rs_name + "\"", now, true);
  } else if (r.scaled || condition_status(r.deployment, "Progressing").empty() ||
             before.dump().find("DeploymentPaused") != std::string::npos) {
    set_condition(status, "Progressing", "True", "ReplicaSetUpdated",
                  "ReplicaSet \"" + rs_name + "\" is progressing.", now, true);
  } else if (!r.new_rs.is_null()) {
    // No progress this round: past the deadline the rollout is declared stuck.
    for (const auto& c : status.value("conditions", json::array())) {
      if (c.value("type", "") != "Progressing" || c.value("status", "") != "True") continue;
      auto since = parse_rfc3339(c.value("lastUpdateTime", ""));
      auto wall = ctx_.clock.wall_now();
      if (since && *since + std::chrono::seconds(deadline) <= wall) {
        set_condition(status, "Progressing", "False", "ProgressDeadlineExceeded",
                      "ReplicaSet \"" + rs_name + "\" has timed out progressing.", now, true);
      } else if (since) {
        enqueue_after(r.key,
                      *since + std::chrono::seconds(deadline) - wall + std::chrono::seconds(1));
      }
    }
  }
  if (status == before) return Status::ok();
  json written = r.deployment;
  written["status"] = status;
  auto result = client::update(ctx_.client, client::resources::kDeployments, written, "status");
  if (!result.is_ok() && result.status().code() != Code::kNotFound) return result.status();
  return Status::ok();
}

}  // namespace k3c::controllers

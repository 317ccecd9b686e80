#include "roles/controllers/disruption/disruption_controller.h"

#include "api/json_fields.h"
#include "api/object_selectors.h"
#include "core/ids.h"
#include "roles/controllers/common/object_reads.h"

namespace k3c::controllers {
namespace {

constexpr const char* kDisruptionSource = "controllermanager";  // upstream's event source

// policy/v1's selector rule: a missing selector picks nothing (nullopt), an empty one
// everything.
std::optional<LabelSelector> budget_selector(const json& pdb) {
  const json& selector = api::member(api::member(pdb, "spec"), "selector");
  if (!selector.is_object()) return std::nullopt;
  if (selector.empty()) return LabelSelector();
  return api::label_selector_of(selector);
}

bool selects(const json& pdb, const json& pod) {
  auto selector = budget_selector(pdb);
  return selector && api::selects(*selector, pod);
}

int64_t scale_replicas(const json& object) {
  const json& replicas = api::member(api::member(object, "spec"), "replicas");
  return replicas.is_number_integer() ? replicas.get<int64_t>() : 1;
}

}  // namespace

DisruptionController::DisruptionController(ControllerContext& ctx)
    : Controller("disruption"),
      ctx_(ctx),
      budgets_(ctx.informers.informer(client::resources::kPodDisruptionBudgets)),
      pods_(ctx.informers.informer(client::resources::kPods)),
      replica_sets_(ctx.informers.informer(client::resources::kReplicaSets)),
      deployments_(ctx.informers.informer(client::resources::kDeployments)),
      replication_controllers_(ctx.informers.informer(client::resources::kReplicationControllers)),
      stateful_sets_(ctx.informers.informer(client::resources::kStatefulSets)) {
  auto budget = [this](const client::ObjectPtr& pdb) { enqueue(client::key_of(*pdb)); };
  budgets_.add_handler({budget, [=](auto&, auto& now) { budget(now); }, nullptr});
  pods_.add_handler({[this](const client::ObjectPtr& pod) { enqueue_budgets_of(*pod); },
                     [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                       enqueue_budgets_of(*old);
                       enqueue_budgets_of(*now);
                     },
                     [this](const client::ObjectPtr& pod) { enqueue_budgets_of(*pod); }});
}

void DisruptionController::enqueue_budgets_of(const json& pod) {
  for (const auto& pdb : budgets_.in_namespace(namespace_of(pod))) {
    if (selects(*pdb, pod)) enqueue(client::key_of(*pdb));
  }
}

std::vector<client::ObjectPtr> DisruptionController::selected_pods(const json& pdb) const {
  // Trees only of the selected pods: the cache keeps pods as documents.
  auto parsed = budget_selector(pdb);
  if (!parsed) return {};
  std::vector<client::ObjectPtr> pods;
  for (const auto& cached : pods_.cached_by_index("namespace", namespace_of(pdb))) {
    if (read_cached(cached, [&](const auto& pod) { return api::selects(*parsed, pod); }))
      pods.push_back(client::Informer::tree_of(cached));
  }
  return pods;
}

std::optional<ControllerScale> DisruptionController::scale_of(const json& ref,
                                                              const std::string& ns) const {
  const std::string kind = api::text(ref, "kind");
  const std::string api_version = api::text(ref, "apiVersion");
  const std::string key = ns + "/" + api::text(ref, "name");
  const std::string uid = api::text(ref, "uid");
  auto found = [&](client::Informer& informer) -> client::ObjectPtr {
    auto object = informer.get(key);
    return object && uid_of(*object) == uid ? object : nullptr;
  };
  if (kind == "ReplicaSet" && api_version == "apps/v1") {
    auto rs = found(replica_sets_);
    if (!rs) return std::nullopt;
    // A Deployment's ReplicaSets come and go during a rollout: the Deployment's scale counts.
    if (const json* owner = controller_ref(*rs); owner &&
                                                 api::text(*owner, "kind") == "Deployment" &&
                                                 api::text(*owner, "apiVersion") == "apps/v1") {
      auto deployment = deployments_.get(ns + "/" + api::text(*owner, "name"));
      if (!deployment || uid_of(*deployment) != api::text(*owner, "uid")) return std::nullopt;
      return ControllerScale{uid_of(*deployment), scale_replicas(*deployment)};
    }
    return ControllerScale{uid_of(*rs), scale_replicas(*rs)};
  }
  client::Informer* informer = nullptr;
  if (kind == "ReplicationController" && api_version == "v1") informer = &replication_controllers_;
  if (kind == "StatefulSet" && api_version == "apps/v1") informer = &stateful_sets_;
  if (!informer) return std::nullopt;
  auto owner = found(*informer);
  if (!owner) return std::nullopt;
  return ControllerScale{uid_of(*owner), scale_replicas(*owner)};
}

Status DisruptionController::reconcile(const std::string& key) {
  auto pdb = budgets_.get(key);
  if (!pdb || being_deleted(*pdb)) return Status::ok();
  const auto pods = selected_pods(*pdb);
  std::vector<const json*> views;
  for (const auto& pod : pods) views.push_back(pod.get());
  if (pods.empty())
    ctx_.events.record(*pdb, "Normal", "NoPods", "No matching pods found", kDisruptionSource);

  const auto now = ctx_.clock.wall_now();
  json status;
  auto count = count_budget(
      *pdb, views, [this](const json& ref, const std::string& ns) { return scale_of(ref, ns); });
  if (!count.is_ok()) {
    const std::string message = count.status().message();
    ctx_.events.record(
        *pdb, "Warning",
        message.rfind("found no controller ref", 0) == 0 ? "NoControllerRef" : "NoControllers",
        message, kDisruptionSource);
    status = failed_budget_status(*pdb, message, rfc3339(now));
  } else {
    BudgetHealth health = count_health(*pdb, views, now);
    for (const auto& pod : pods) {
      for (const auto& name : health.not_deleted) {
        if (name_of(*pod) != name) continue;
        ctx_.events.record(*pod, "Warning", "NotDeleted",
                           "Pod was expected by PDB " + key + " to be deleted but it wasn't",
                           kDisruptionSource);
      }
    }
    if (health.recheck) {
      enqueue_after(key,
                    std::chrono::duration_cast<client::WorkQueue::Duration>(*health.recheck - now));
    }
    status = budget_status(*pdb, *count, health, rfc3339(now));
  }
  if (status == api::member(*pdb, "status")) return Status::ok();
  json updated = *pdb;
  updated["status"] = std::move(status);
  auto written =
      client::update(ctx_.client, client::resources::kPodDisruptionBudgets, updated, "status");
  if (!written.is_ok() && written.status().code() == Code::kNotFound) return Status::ok();
  return written.status();
}

}  // namespace k3c::controllers

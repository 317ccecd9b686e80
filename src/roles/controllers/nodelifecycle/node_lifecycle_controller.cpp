#include "roles/controllers/nodelifecycle/node_lifecycle_controller.h"

#include "api/json_fields.h"
#include "core/log.h"
#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/nodelifecycle/node_health.h"

namespace k3c::controllers {
namespace {

constexpr const char* kNodeLeaseNamespace = "kube-node-lease";

std::string ready_heartbeat(const json& node) {
  auto status = node.find("status");
  if (status == node.end() || !status->is_object()) return "";
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return "";
  for (const json& c : *conditions) {
    if (c.is_object() && c.value("type", "") == "Ready") {
      const json& t = c.value("lastHeartbeatTime", json());
      return t.is_string() ? t.get<std::string>() : "present";
    }
  }
  return "";
}

std::string lease_renew_time(const client::Informer::Cached& lease) {
  if (!lease) return "";
  return std::string(read_cached(
      lease, [](const auto& l) { return member_text(member_or_null(l, "spec"), "renewTime"); }));
}

}  // namespace

NodeLifecycleController::NodeLifecycleController(ControllerContext& ctx,
                                                 const ControllerManagerSettings& settings)
    : Controller("node-lifecycle"),
      ctx_(ctx),
      period_(settings.node_monitor_period),
      grace_(settings.node_monitor_grace_period),
      startup_grace_(settings.node_startup_grace_period),
      nodes_(ctx.informers.informer(client::resources::kNodes)),
      leases_(ctx.informers.informer(client::resources::kLeases)),
      pods_(ctx.informers.informer(client::resources::kPods)) {
  auto by_name = [this](const client::ObjectPtr& o) { enqueue(name_of(*o)); };
  nodes_.add_handler({by_name, [=](auto&, auto& o) { by_name(o); }, by_name});
  index_pods_by_node(pods_);
}

Status NodeLifecycleController::reconcile(const std::string& name) {
  auto node = nodes_.get(name);
  if (!node) {
    std::lock_guard lock(mu_);
    health_.erase(name);
    return Status::ok();
  }
  const auto now = ctx_.clock.now();
  const std::string heartbeat = ready_heartbeat(*node);
  const std::string renew =
      lease_renew_time(leases_.cached(std::string(kNodeLeaseNamespace) + "/" + name));
  std::string previous_ready;
  bool silent = false;
  {
    std::lock_guard lock(mu_);
    auto [it, first] = health_.try_emplace(name);
    Health& h = it->second;
    if (first || h.heartbeat != heartbeat || h.renew != renew) {
      h.heartbeat = heartbeat;
      h.renew = renew;
      h.probed = now;
    }
    const auto grace = heartbeat.empty() ? startup_grace_ : grace_;
    silent = now - h.probed > grace;
    previous_ready = first ? condition_status(*node, "Ready") : h.ready;
  }

  json updated = *node;
  const std::string stamp = ctx_.now();
  if (silent && mark_node_status_unknown(updated, stamp)) {
    auto written = client::update(ctx_.client, client::resources::kNodes, updated, "status");
    if (!written.is_ok()) return written.status();
    updated = std::move(written).value();
  }
  const std::string ready = condition_status(updated, "Ready");
  if (reconcile_condition_taints(updated, condition_taints(updated), stamp)) {
    auto written = client::update(ctx_.client, client::resources::kNodes, updated);
    if (!written.is_ok()) return written.status();
  }
  if (previous_ready == "True" && ready != "True") {
    ctx_.events.record(updated, "Normal", "NodeNotReady",
                       "Node " + name + " status is now: NodeNotReady", "node-controller");
    RETURN_IF_ERROR(mark_pods_not_ready(name));
  } else if (previous_ready != "True" && ready == "True") {
    ctx_.events.record(updated, "Normal", "NodeReady", "Node " + name + " status is now: NodeReady",
                       "node-controller");
  }
  {
    std::lock_guard lock(mu_);
    health_[name].ready = ready;
  }
  enqueue_after(name, period_);
  return Status::ok();
}

// Upstream's MarkPodsNotReady: the node cannot run them, so Services stop sending traffic.
Status NodeLifecycleController::mark_pods_not_ready(const std::string& node) {
  for (const auto& pod : pods_.by_index(kPodsByNodeIndex, node)) {
    if (condition_status(*pod, "Ready") != "True") continue;
    // Only the status flips (upstream keeps the old reason and message).
    json conditions = api::member(api::member(*pod, "status"), "conditions");
    for (json& c : conditions) {
      if (c.is_object() && c.value("type", "") == "Ready") {
        c["status"] = "False";
        c["lastTransitionTime"] = ctx_.now();
      }
    }
    json patch = {{"status", {{"conditions", conditions}}}};
    Status written = client::patch_unanswered(ctx_.client, client::resources::kPods,
                                              namespace_of(*pod), name_of(*pod),
                                              "application/strategic-merge-patch+json", patch,
                                              "status");
    if (!written.is_ok() && written.code() != Code::kNotFound) return written;
    ctx_.events.record(*pod, "Warning", "NodeNotReady", "Node is not ready", "node-controller");
  }
  return Status::ok();
}

}  // namespace k3c::controllers

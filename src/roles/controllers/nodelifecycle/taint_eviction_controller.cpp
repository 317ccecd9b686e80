#include "roles/controllers/nodelifecycle/taint_eviction_controller.h"

#include <algorithm>
#include <optional>

#include "core/ids.h"
#include "roles/controllers/common/pod_disruption.h"
#include "roles/scheduler/model.h"

namespace k3c::controllers {
namespace {

std::string key_of(const json& o) { return namespace_of(o) + "/" + name_of(o); }

const std::string& node_name_of(const json& pod) {
  static const std::string none;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return none;
  auto n = spec->find("nodeName");
  return n != spec->end() && n->is_string() ? n->get_ref<const std::string&>() : none;
}

}  // namespace

TaintEvictionController::TaintEvictionController(ControllerContext& ctx)
    : Controller("taint-eviction"),
      ctx_(ctx),
      pods_(ctx.informers.informer(client::resources::kPods)),
      nodes_(ctx.informers.informer(client::resources::kNodes)) {
  index_pods_by_node(pods_);
  auto pod_changed = [this](const client::ObjectPtr& pod) {
    if (!node_name_of(*pod).empty()) enqueue(key_of(*pod));
  };
  pods_.add_handler({pod_changed, [=](auto&, auto& o) { pod_changed(o); }, nullptr});
  auto node_changed = [this](const client::ObjectPtr& node) {
    for (const auto& pod : pods_.by_index(kPodsByNodeIndex, name_of(*node))) {
      enqueue(key_of(*pod));
    }
  };
  nodes_.add_handler({node_changed, [=](auto&, auto& o) { node_changed(o); }, nullptr});
}

Status TaintEvictionController::reconcile(const std::string& key) {
  auto pod = pods_.get(key);
  if (!pod || being_deleted(*pod)) return Status::ok();
  auto node = nodes_.get(node_name_of(*pod));
  if (!node) return Status::ok();  // the pod GC handles pods of deleted nodes
  const json& spec = node->value("spec", json::object());
  const json& taint_list = spec.is_object() ? spec.value("taints", json::array()) : json::array();
  const auto taints = scheduler::taints_from_json(taint_list);
  const json& pod_spec = pod->value("spec", json::object());
  const auto tolerations = scheduler::tolerations_from_json(
      pod_spec.is_object() ? pod_spec.value("tolerations", json::array()) : json::array());

  // The moment the pod must go: the earliest over its NoExecute taints of timeAdded plus the
  // shortest tolerationSeconds of the tolerations that match it; none: it may stay.
  std::optional<std::chrono::system_clock::time_point> deadline;
  const auto now = ctx_.clock.wall_now();
  for (size_t i = 0; i < taints.size(); ++i) {
    if (taints[i].effect != scheduler::TaintEffect::kNoExecute) continue;
    // Upstream's minimum toleration time: tolerations without tolerationSeconds do not
    // bound it; an untolerated taint evicts at once.
    bool tolerated = false;
    std::optional<int64_t> seconds;
    for (const auto& t : tolerations) {
      if (!t.tolerates(taints[i])) continue;
      tolerated = true;
      if (t.toleration_seconds) {
        seconds = std::min(seconds.value_or(*t.toleration_seconds), *t.toleration_seconds);
      }
    }
    if (tolerated && !seconds) continue;
    auto added = now;
    if (tolerated && i < taint_list.size() && taint_list[i].is_object()) {
      if (auto at = parse_rfc3339(taint_list[i].value("timeAdded", ""))) added = *at;
    }
    auto due = tolerated ? added + std::chrono::seconds(std::max<int64_t>(*seconds, 0)) : now;
    if (!deadline || due < *deadline) deadline = due;
  }
  if (!deadline) return Status::ok();
  if (*deadline > now) {
    enqueue_after(key, std::chrono::duration_cast<client::WorkQueue::Duration>(*deadline - now));
    return Status::ok();
  }
  ctx_.events.record(*pod, "Normal", "TaintManagerEviction", "Marking for deletion Pod " + key,
                     "taint-eviction-controller");
  return delete_disrupted_pod(ctx_, *pod, "DeletionByTaintManager",
                              "Taint manager: deleting due to NoExecute taint", false);
}

}  // namespace k3c::controllers

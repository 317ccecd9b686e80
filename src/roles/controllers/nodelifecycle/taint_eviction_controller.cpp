#include "roles/controllers/nodelifecycle/taint_eviction_controller.h"

#include <algorithm>
#include <optional>

#include "core/ids.h"
#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/common/pod_disruption.h"
#include "roles/scheduler/model.h"

namespace k3c::controllers {
namespace {

std::string key_of(const json& o) { return namespace_of(o) + "/" + name_of(o); }

const json& tolerations_of(const json& pod) {
  return member_or_null(member_or_null(pod, "spec"), "tolerations");
}
const json& taints_of(const json& node) {
  return member_or_null(member_or_null(node, "spec"), "taints");
}

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
  // As upstream's taint manager: a pod is looked at when it is bound or its tolerations
  // change, and only when its node has taints; a node's pods when its taints change (not on
  // every status heartbeat). The node's cache is written before its handlers run, so a pod
  // bound as its node gets taints is looked at by one handler or the other.
  auto on_tainted_node = [this](const json& pod) {
    const std::string& node_name = node_name_of(pod);
    auto node = node_name.empty() ? client::Informer::Cached{} : nodes_.cached(node_name);
    return node && read_cached(node, [](const auto& n) {
             const auto& taints = member_or_null(member_or_null(n, "spec"), "taints");
             return taints.is_array() && !taints.empty();
           });
  };
  auto pod_added = [=, this](const client::ObjectPtr& pod) {
    if (on_tainted_node(*pod)) enqueue(key_of(*pod));
  };
  auto pod_updated = [=, this](const client::ObjectPtr& old, const client::ObjectPtr& pod) {
    const bool looked_at_again =
        node_name_of(*old) != node_name_of(*pod) || tolerations_of(*old) != tolerations_of(*pod);
    if (looked_at_again && on_tainted_node(*pod)) enqueue(key_of(*pod));
  };
  pods_.add_handler({pod_added, pod_updated, nullptr});
  auto enqueue_pods_of = [this](const json& node) {
    for (const auto& pod : pods_.cached_by_index(kPodsByNodeIndex, name_of(node))) {
      enqueue(read_cached(pod, [](const auto& p) {
        return std::string(meta_text(p, "namespace")) + "/" + std::string(meta_text(p, "name"));
      }));
    }
  };
  nodes_.add_handler({[=](const client::ObjectPtr& node) { enqueue_pods_of(*node); },
                      [=](const client::ObjectPtr& old, const client::ObjectPtr& node) {
                        if (taints_of(*old) != taints_of(*node)) enqueue_pods_of(*node);
                      },
                      nullptr});
}

Status TaintEvictionController::reconcile(const std::string& key) {
  // The cached pod and node are read in place: most pods run on nodes without NoExecute
  // taints, and neither tree is made for them.
  auto cached_pod = pods_.cached(key);
  if (!cached_pod) return Status::ok();
  auto [node_name, deleting] = read_cached(cached_pod, [](const auto& p) {
    return std::pair{std::string(member_text(member_or_null(p, "spec"), "nodeName")),
                     deletion_marked(p)};
  });
  if (deleting || node_name.empty()) return Status::ok();
  auto node = nodes_.cached(node_name);
  if (!node) return Status::ok();  // the pod GC handles pods of deleted nodes
  const json taint_list = read_cached(node, [](const auto& n) {
    return member_or_null(member_or_null(n, "spec"), "taints").template get<json>();
  });
  if (!taint_list.is_array() || taint_list.empty()) return Status::ok();
  auto pod = pods_.get(key);
  if (!pod) return Status::ok();
  const auto taints = scheduler::taints_from_json(taint_list);
  const auto tolerations = scheduler::tolerations_from_json(tolerations_of(*pod));

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

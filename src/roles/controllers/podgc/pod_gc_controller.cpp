#include "roles/controllers/podgc/pod_gc_controller.h"

#include <algorithm>
#include <set>

#include "core/log.h"
#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/common/pod_disruption.h"

namespace k3c::controllers {
namespace {

constexpr const char* kKey = "pods";  // one key: each pass looks at every pod

std::string node_of(const json& pod) {
  auto spec = pod.find("spec");
  return spec != pod.end() && spec->is_object() ? spec->value("nodeName", "") : "";
}

std::string created_of(const json& pod) { return meta_str(pod, "creationTimestamp"); }

}  // namespace

PodGcController::PodGcController(ControllerContext& ctx, const ControllerManagerSettings& settings)
    : Controller("pod-garbage-collector"),
      ctx_(ctx),
      threshold_(settings.terminated_pod_gc_threshold),
      pods_(ctx.informers.informer(client::resources::kPods)),
      nodes_(ctx.informers.informer(client::resources::kNodes)) {
  enqueue_after(kKey, kPeriod);
}

Status PodGcController::reconcile(const std::string&) {
  // The next pass is queued first: a failing pass must not stop the collector.
  enqueue_after(kKey, kPeriod);
  // Trees only of the pods a collector below may act on: the cache keeps most as documents.
  std::vector<client::ObjectPtr> pods;
  for (const auto& cached : pods_.cached_list()) {
    bool candidate = read_cached(cached, [&](const auto& pod) {
      std::string_view phase = member_text(member_or_null(pod, "status"), "phase");
      std::string_view node = member_text(member_or_null(pod, "spec"), "nodeName");
      bool deleting = deletion_marked(pod);
      return ((phase == "Succeeded" || phase == "Failed") && !deleting) ||
             (!node.empty() && !nodes_.contains(node)) || (deleting && node.empty());
    });
    if (candidate) pods.push_back(client::Informer::tree_of(cached));
  }
  RETURN_IF_ERROR(collect_terminated(pods));
  RETURN_IF_ERROR(collect_orphaned(pods));
  return collect_unscheduled_terminating(pods);
}

Status PodGcController::collect_terminated(const std::vector<client::ObjectPtr>& pods) {
  if (threshold_ <= 0) return Status::ok();
  std::vector<client::ObjectPtr> terminated;
  for (const auto& pod : pods) {
    const std::string phase = pod_phase(*pod);
    if ((phase == "Succeeded" || phase == "Failed") && !being_deleted(*pod)) {
      terminated.push_back(pod);
    }
  }
  if (terminated.size() <= static_cast<size_t>(threshold_)) return Status::ok();
  const size_t excess = terminated.size() - static_cast<size_t>(threshold_);
  std::partial_sort(terminated.begin(), terminated.begin() + static_cast<ptrdiff_t>(excess),
                    terminated.end(), [](const auto& a, const auto& b) {
                      return std::pair(created_of(*a), name_of(*a)) <
                             std::pair(created_of(*b), name_of(*b));
                    });
  log::for_role("controller-manager")
      ->info("pod GC: deleting {} terminated pods beyond the threshold of {}", excess, threshold_);
  for (size_t i = 0; i < excess; ++i) {
    client::DeleteOptions options;
    options.precondition_uid = uid_of(*terminated[i]);
    options.grace_period_seconds = 0;
    Status removed = client::remove(ctx_.client, client::resources::kPods,
                                    namespace_of(*terminated[i]), name_of(*terminated[i]), options);
    if (!removed.is_ok() && removed.code() != Code::kNotFound &&
        removed.code() != Code::kConflict) {
      return removed;
    }
  }
  return Status::ok();
}

Status PodGcController::collect_orphaned(const std::vector<client::ObjectPtr>& pods) {
  const auto now = ctx_.clock.now();
  std::map<std::string, bool> gone;  // node -> confirmed gone this pass
  std::set<std::string> still_missing;
  for (const auto& pod : pods) {
    const std::string node = node_of(*pod);
    if (node.empty() || nodes_.contains(node)) continue;
    still_missing.insert(node);
    auto [since, first] = missing_since_.try_emplace(node, now);
    if (now - since->second < kQuarantine) continue;
    auto known = gone.find(node);
    if (known == gone.end()) {
      // The cache may lag: only the API's NotFound makes a node gone.
      auto fetched = client::get(ctx_.client, client::resources::kNodes, "", node);
      const bool not_found = !fetched.is_ok() && fetched.status().code() == Code::kNotFound;
      if (!fetched.is_ok() && !not_found) return fetched.status();
      known = gone.emplace(node, not_found).first;
    }
    if (!known->second) continue;
    RETURN_IF_ERROR(
        delete_disrupted_pod(ctx_, *pod, "DeletionByPodGC", "PodGC: node no longer exists", true));
  }
  std::erase_if(missing_since_,
                [&](const auto& entry) { return !still_missing.contains(entry.first); });
  return Status::ok();
}

Status PodGcController::collect_unscheduled_terminating(
    const std::vector<client::ObjectPtr>& pods) {
  for (const auto& pod : pods) {
    if (!being_deleted(*pod) || !node_of(*pod).empty()) continue;
    client::DeleteOptions options;
    options.precondition_uid = uid_of(*pod);
    options.grace_period_seconds = 0;
    Status removed = client::remove(ctx_.client, client::resources::kPods, namespace_of(*pod),
                                    name_of(*pod), options);
    if (!removed.is_ok() && removed.code() != Code::kNotFound &&
        removed.code() != Code::kConflict) {
      return removed;
    }
  }
  return Status::ok();
}

}  // namespace k3c::controllers

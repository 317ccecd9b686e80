#include "roles/controllers/common/pod_disruption.h"

namespace k3c::controllers {

Status delete_disrupted_pod(ControllerContext& ctx, const json& pod, const std::string& reason,
                            const std::string& message, bool force) {
  json status = {{"conditions", json::array({{{"type", "DisruptionTarget"},
                                              {"status", "True"},
                                              {"reason", reason},
                                              {"message", message},
                                              {"lastTransitionTime", ctx.now()}}})}};
  const json& current = pod.value("status", json::object());
  const std::string phase = current.is_object() ? current.value("phase", "") : "";
  if (force && phase != "Succeeded" && phase != "Failed") status["phase"] = "Failed";
  if (condition_status(pod, "DisruptionTarget") != "True" || status.contains("phase")) {
    Status patched = client::patch_unanswered(
        ctx.client, client::resources::kPods, namespace_of(pod), name_of(pod),
        "application/strategic-merge-patch+json", {{"status", status}}, "status");
    if (!patched.is_ok() && patched.code() != Code::kNotFound) return patched;
  }
  client::DeleteOptions options;
  options.precondition_uid = uid_of(pod);
  if (force) options.grace_period_seconds = 0;
  Status removed = client::remove(ctx.client, client::resources::kPods, namespace_of(pod),
                                  name_of(pod), options);
  if (!removed.is_ok() && removed.code() != Code::kNotFound) return removed;
  return Status::ok();
}

}  // namespace k3c::controllers

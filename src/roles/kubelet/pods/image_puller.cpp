// Image presence per pull policy (see image_puller.h).
#include "roles/kubelet/pods/image_puller.h"

namespace k3c::kubelet {

using nlohmann::json;

std::string image_pull_policy(const json& container) {
  std::string policy = container.value("imagePullPolicy", "");
  if (!policy.empty()) return policy;
  const std::string image = container.value("image", "");
  if (image.find('@') != std::string::npos) return "IfNotPresent";
  const auto slash = image.rfind('/');
  const auto colon = image.rfind(':');
  const bool tagged = colon != std::string::npos && (slash == std::string::npos || colon > slash);
  return !tagged || image.substr(colon + 1) == "latest" ? "Always" : "IfNotPresent";
}

ImageOutcome ensure_image(const json& pod, const json& container, const std::string& field_path,
                          SyncContext& ctx) {
  const std::string image = container.value("image", "");
  const std::string policy = image_pull_policy(container);
  auto present = ctx.images.image_status(image);
  auto quoted = "\"" + image + "\"";
  ImageOutcome out;
  if (policy == "Never" || (policy == "IfNotPresent" && present.is_ok())) {
    if (present.is_ok()) {
      ctx.events.record(pod, field_path, "Normal", "Pulled",
                        "Container image " + quoted + " already present on machine");
      out.image = *present;
      return out;
    }
    const std::string msg =
        "Container image " + quoted + " is not present with pull policy of Never";
    ctx.events.record(pod, field_path, "Warning", "ErrImageNeverPull", msg);
    out.failure = {"ErrImageNeverPull", msg};
    return out;
  }
  const std::string uid = pod["metadata"].value("uid", "");
  const std::string key = uid + "_" + image;
  if (ctx.pull_backoff.in_backoff_since_update(key)) {
    const std::string msg = "Back-off pulling image " + quoted;
    ctx.events.record(pod, field_path, "Normal", "BackOff", msg);
    out.failure = {"ImagePullBackOff", msg};
    out.retry_after =
        ctx.pull_backoff.last_update(key) + ctx.pull_backoff.get(key) - ctx.clock.wall_now();
    return out;
  }
  ctx.events.record(pod, field_path, "Normal", "Pulling", "Pulling image " + quoted);
  const auto started = ctx.clock.now();
  auto pulled = ctx.images.pull_image(image, std::nullopt);
  if (pulled.is_ok()) present = ctx.images.image_status(image);
  if (!pulled.is_ok() || !present.is_ok()) {
    const std::string why = pulled.is_ok() ? present.status().message() : pulled.status().message();
    ctx.events.record(pod, field_path, "Warning", "Failed",
                      "Failed to pull image " + quoted + ": " + why);
    ctx.pull_backoff.next(key, ctx.clock.wall_now());
    out.failure = {"ErrImagePull", why};
    // Sync again soon, so the status shows ImagePullBackOff while the backoff runs.
    out.retry_after = std::chrono::seconds(1);
    return out;
  }
  const std::string took = go_duration(ctx.clock.now() - started);
  ctx.events.record(pod, field_path, "Normal", "Pulled",
                    "Successfully pulled image " + quoted + " in " + took + " (" + took +
                        " including waiting). Image size: " + std::to_string(present->size) +
                        " bytes.");
  out.image = *present;
  return out;
}

}  // namespace k3c::kubelet

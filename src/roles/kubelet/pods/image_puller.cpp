// Image presence per pull policy (see image_puller.h).
#include "roles/kubelet/pods/image_puller.h"

#include "roles/kubelet/pods/pull_secrets.h"

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

namespace {

// Pulls with each matching imagePullSecrets credential in turn (anonymously when none),
// as upstream: the last failure is the answer.
Result<std::string> pull(const json& pod, const std::string& image,
                         const runtime::Reference& reference, const std::string& field_path,
                         SyncContext& ctx) {
  PullCredentials creds = pull_credentials(pod, reference, ctx.objects);
  if (!creds.missing_secrets.empty()) {
    std::string names;
    for (const auto& n : creds.missing_secrets) names += (names.empty() ? "" : ", ") + n;
    ctx.events.record(pod, field_path, "Warning", "FailedToRetrieveImagePullSecret",
                      "Unable to retrieve some image pull secrets (" + names +
                          "); attempting to pull the image may not succeed.");
  }
  if (creds.auths.empty()) return ctx.images.pull_image(image, std::nullopt);
  Result<std::string> last = error(Code::kInternal, "no credentials tried");
  for (const auto& auth : creds.auths) {
    last = ctx.images.pull_image(image, auth);
    if (last.is_ok()) break;
  }
  return last;
}

}  // namespace

ImageOutcome ensure_image(const json& pod, const json& container, const std::string& field_path,
                          SyncContext& ctx) {
  const std::string image = container.value("image", "");
  auto quoted = "\"" + image + "\"";
  ImageOutcome out;
  auto reference = runtime::parse_reference(image);
  if (!reference.is_ok()) {
    const std::string msg = "Failed to apply default image tag " + quoted +
                            ": couldn't parse image name " + quoted + ": invalid reference format";
    ctx.events.record(pod, field_path, "Warning", "InspectFailed", msg);
    out.failure = {"InvalidImageName", msg};
    return out;
  }
  const std::string policy = image_pull_policy(container);
  auto present = ctx.images.image_status(image);
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
  auto pulled = pull(pod, image, *reference, field_path, ctx);
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

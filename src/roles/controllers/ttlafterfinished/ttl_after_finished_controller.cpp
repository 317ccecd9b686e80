#include "roles/controllers/ttlafterfinished/ttl_after_finished_controller.h"

#include "core/ids.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

TtlAfterFinishedController::TtlAfterFinishedController(ControllerContext& ctx)
    : Controller("ttl-after-finished"),
      ctx_(ctx),
      jobs_(ctx.informers.informer(client::resources::kJobs)) {
  auto changed = [this](const client::ObjectPtr& job) {
    if (time_left(*job, ctx_.clock.wall_now())) enqueue(client::key_of(*job));
  };
  jobs_.add_handler({changed, [=](auto&, auto& now) { changed(now); }, nullptr});
}

std::optional<std::chrono::nanoseconds> TtlAfterFinishedController::time_left(
    const json& job, std::chrono::system_clock::time_point now) {
  if (being_deleted(job) || !job.is_object()) return std::nullopt;
  const json& spec = job.value("spec", json::object());
  auto ttl = spec.is_object() ? spec.find("ttlSecondsAfterFinished") : spec.end();
  if (!spec.is_object() || ttl == spec.end() || !ttl->is_number_integer()) return std::nullopt;
  const json& status = job.value("status", json::object());
  if (!status.is_object()) return std::nullopt;
  for (const json& c : status.value("conditions", json::array())) {
    if (!c.is_object() || c.value("status", "") != "True") continue;
    std::string type = c.value("type", "");
    if (type != "Complete" && type != "Failed") continue;
    auto finished = parse_rfc3339(c.value("lastTransitionTime", ""));
    if (!finished) return std::nullopt;  // no finish time: nothing to count from
    return *finished + std::chrono::seconds(ttl->get<int64_t>()) - now;
  }
  return std::nullopt;
}

Status TtlAfterFinishedController::reconcile(const std::string& key) {
  auto cached = jobs_.get(key);
  if (!cached) return Status::ok();
  auto left = time_left(*cached, ctx_.clock.wall_now());
  if (!left) return Status::ok();
  if (*left > std::chrono::nanoseconds(0)) {
    enqueue_after(key, *left);
    return Status::ok();
  }
  // The cache may be stale (a longer TTL set since): decide on a fresh read.
  auto [ns, name] = client::split_key(key);
  auto fresh = client::get(ctx_.client, client::resources::kJobs, ns, name);
  if (!fresh.is_ok())
    return fresh.status().code() == Code::kNotFound ? Status::ok() : fresh.status();
  left = time_left(*fresh, ctx_.clock.wall_now());
  if (!left) return Status::ok();
  if (*left > std::chrono::nanoseconds(0)) {
    enqueue_after(key, *left);
    return Status::ok();
  }
  client::DeleteOptions options;
  options.propagation_policy = "Foreground";
  options.precondition_uid = uid_of(*fresh);
  Status s = client::remove(ctx_.client, client::resources::kJobs, ns, name, options);
  if (s.code() == Code::kNotFound || s.code() == Code::kConflict) return Status::ok();
  return s;
}

}  // namespace k3c::controllers

// The kubelet's pod status and deletion writes (see pod_api_writes.h).
#include "roles/kubelet/pods/pod_api_writes.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

std::string writes_meta(const json& pod, const char* field) {
  return pod.value("metadata", json::object()).value(field, "");
}

// A merge patch turning `from` into `to` (top-level keys of status; nulls remove).
json status_patch(const json& from, const json& to) {
  json patch = to;
  if (from.is_object()) {
    for (const auto& [k, v] : from.items()) {
      if (!to.contains(k)) patch[k] = nullptr;
    }
  }
  return patch;
}

}  // namespace

Status patch_pod_status(client::Client& client, const json& pod, const json& status) {
  const json& current = pod.value("status", json::object());
  json patch = {{"metadata", {{"uid", writes_meta(pod, "uid")}}},
                {"status", status_patch(current, status)}};
  return client::patch_unanswered(client, client::resources::kPods, writes_meta(pod, "namespace"),
                                  writes_meta(pod, "name"), "application/merge-patch+json", patch,
                                  "status");
}

Status confirm_pod_deletion(client::Client& client, const json& pod) {
  client::DeleteOptions options;
  options.grace_period_seconds = 0;
  options.precondition_uid = writes_meta(pod, "uid");
  Status s = client::remove(client, client::resources::kPods, writes_meta(pod, "namespace"),
                            writes_meta(pod, "name"), options);
  if (!s.is_ok() && s.code() != Code::kNotFound && s.code() != Code::kConflict) return s;
  return Status::ok();
}

}  // namespace k3c::kubelet

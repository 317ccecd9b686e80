// Restart rules (see restart_rules.h).
#include "roles/kubelet/pods/restart_rules.h"

namespace k3c::kubelet {

using nlohmann::json;

std::string pod_restart_policy(const json& pod) {
  const json spec = pod.value("spec", json::object());
  const std::string policy = spec.value("restartPolicy", "");
  return policy.empty() ? "Always" : policy;
}

bool is_restartable_init_container(const json& container) {
  return container.value("restartPolicy", "") == "Always";
}

bool pod_is_deleting(const json& pod) {
  const json meta = pod.value("metadata", json::object());
  auto it = meta.find("deletionTimestamp");
  return it != meta.end() && !it->is_null();
}

bool should_restart_container(const json& pod, const json& container,
                              const runtime::ContainerStatus* latest) {
  using runtime::ContainerState;
  if (pod_is_deleting(pod)) return false;
  if (!latest) return true;
  if (latest->state == ContainerState::kRunning) return false;
  if (latest->state == ContainerState::kUnknown || latest->state == ContainerState::kCreated) {
    return true;
  }
  if (is_restartable_init_container(container)) return true;
  const std::string policy = pod_restart_policy(pod);
  if (policy == "Never") return false;
  if (policy == "OnFailure" && latest->exit_code == 0) return false;
  return true;
}

}  // namespace k3c::kubelet

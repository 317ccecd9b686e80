// One pod's runtime state (see pod_runtime_state.h).
#include "roles/kubelet/pods/pod_runtime_state.h"

#include <algorithm>
#include <set>

#include "roles/kubelet/pods/labels.h"

namespace k3c::kubelet {

runtime::PodFilter pod_filter(const std::string& pod_uid) { return {pod_uid, labels::kPodUid}; }

std::vector<const runtime::ContainerStatus*> PodRuntimeState::instances(
    std::string_view name) const {
  std::vector<const runtime::ContainerStatus*> out;
  for (const auto& c : containers) {
    if (c.name == name) out.push_back(&c);
  }
  return out;
}

const runtime::ContainerStatus* PodRuntimeState::latest(std::string_view name) const {
  for (const auto& c : containers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const runtime::ContainerStatus* PodRuntimeState::latest_in_sandbox(std::string_view name) const {
  const auto* s = sandbox();
  if (!s) return nullptr;
  for (const auto& c : containers) {
    if (c.name == name && c.sandbox_id == s->id) return &c;
  }
  return nullptr;
}

PodRuntimeState pod_runtime_state(const std::vector<runtime::SandboxStatus>& sandboxes,
                                  const std::vector<runtime::ContainerStatus>& containers,
                                  const std::string& pod_uid) {
  PodRuntimeState state;
  const runtime::PodFilter filter = pod_filter(pod_uid);
  std::set<std::string> ids;
  for (const auto& s : sandboxes) {
    if (filter.matches(s.config)) {
      state.sandboxes.push_back(s);
      ids.insert(s.id);
    }
  }
  for (const auto& c : containers) {
    if (filter.matches(c.labels, c.sandbox_id, ids)) state.containers.push_back(c);
  }
  std::stable_sort(state.sandboxes.begin(), state.sandboxes.end(),
                   [](const auto& a, const auto& b) {
                     return a.created_at != b.created_at ? a.created_at > b.created_at
                                                         : a.config.attempt > b.config.attempt;
                   });
  std::stable_sort(
      state.containers.begin(), state.containers.end(), [](const auto& a, const auto& b) {
        return a.created_at != b.created_at ? a.created_at > b.created_at : a.attempt > b.attempt;
      });
  return state;
}

}  // namespace k3c::kubelet

// One pod's runtime state (see pod_runtime_state.h).
#include "roles/kubelet/pods/pod_runtime_state.h"

#include <algorithm>
#include <set>

#include "roles/kubelet/pods/labels.h"

namespace k3c::kubelet {

namespace {
std::string label(const std::map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? "" : it->second;
}
}  // namespace

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
  std::set<std::string> ids;
  for (const auto& s : sandboxes) {
    if (s.config.pod_uid == pod_uid || label(s.config.labels, labels::kPodUid) == pod_uid) {
      state.sandboxes.push_back(s);
      ids.insert(s.id);
    }
  }
  for (const auto& c : containers) {
    if (label(c.labels, labels::kPodUid) == pod_uid || ids.count(c.sandbox_id)) {
      state.containers.push_back(c);
    }
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

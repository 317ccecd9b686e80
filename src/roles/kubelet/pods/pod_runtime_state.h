// What the runtime has of one pod: its sandboxes and containers (from every sandbox the pod
// had), newest first, as the kubelet's status computation and sync read them (upstream's
// kubecontainer.PodStatus).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct PodRuntimeState {
  std::vector<runtime::SandboxStatus> sandboxes;     // newest first
  std::vector<runtime::ContainerStatus> containers;  // newest first

  // The newest sandbox, or null.
  const runtime::SandboxStatus* sandbox() const {
    return sandboxes.empty() ? nullptr : &sandboxes.front();
  }
  bool sandbox_ready() const {
    return sandbox() && sandbox()->state == runtime::SandboxState::kReady;
  }
  // Every instance of a container, newest first.
  std::vector<const runtime::ContainerStatus*> instances(std::string_view name) const;
  // The newest instance, in any sandbox; null when it never ran.
  const runtime::ContainerStatus* latest(std::string_view name) const;
  // The newest instance in the current sandbox (what sync decisions look at: a recreated
  // sandbox starts its containers over).
  const runtime::ContainerStatus* latest_in_sandbox(std::string_view name) const;
};

// Which runtime objects belong to the pod `pod_uid` (its uid in the sandbox config or the pod
// uid label the kubelet sets).
runtime::PodFilter pod_filter(const std::string& pod_uid);

// The part of the runtime's lists that belongs to `pod_uid` (pod_filter), sorted.
PodRuntimeState pod_runtime_state(const std::vector<runtime::SandboxStatus>& sandboxes,
                                  const std::vector<runtime::ContainerStatus>& containers,
                                  const std::string& pod_uid);

}  // namespace k3c::kubelet

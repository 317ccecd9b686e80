// postStart and preStop hooks, as upstream's kubelet runs them (lifecycle.HandlerRunner):
// `exec` runs the command in the container through the runtime; `sleep` waits; `httpGet`
// sends a GET to the hook's host (else the pod's IP) through the probes' network, and any
// HTTP response counts as done (upstream does not look at the status code of hooks). A
// failure's message has upstream's shape: `Exec lifecycle hook ([sh -c exit 3]) for
// Container "app" in Pod "web_ns(uid)" failed - error: command 'sh -c exit 3' exited with 3:
// , message: ""`, `HTTP lifecycle hook (/path) for Container ... failed - error: ...`.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "roles/kubelet/pods/probes.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct HookOutcome {
  bool ok = true;
  std::string message;  // the failure, for the FailedPostStartHook / FailedPreStopHook event
};

// Where an httpGet hook goes: the network (null: none, the hook fails saying so) and the
// pod's IP (the node's for hostNetwork pods; empty when the pod has none).
struct HookNetwork {
  ProbeNetwork* network = nullptr;
  ProbeTarget pod;  // where the pod is reached (probes.h)
};

// `handler`: the LifecycleHandler ({exec: {command}} / {sleep: {seconds}} / {httpGet: ...}).
HookOutcome run_lifecycle_hook(runtime::RuntimeService& runtime, const std::string& container_id,
                               const nlohmann::json& pod, const nlohmann::json& container,
                               const nlohmann::json& handler, std::chrono::seconds timeout,
                               const HookNetwork& net);

}  // namespace k3c::kubelet

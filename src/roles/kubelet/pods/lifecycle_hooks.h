// postStart and preStop hooks, as upstream's kubelet runs them (lifecycle.HandlerRunner):
// `exec` runs the command in the container through the runtime; `sleep` waits; `httpGet` is
// not built yet and fails with a message saying so. A failure's message has upstream's
// shape: `Exec lifecycle hook ([sh -c exit 3]) for Container "app" in Pod "web_ns(uid)"
// failed - error: command 'sh -c exit 3' exited with 3: , message: ""`.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct HookOutcome {
  bool ok = true;
  std::string message;  // the failure, for the FailedPostStartHook / FailedPreStopHook event
};

// `handler`: the LifecycleHandler ({exec: {command}} / {sleep: {seconds}} / {httpGet: ...}).
HookOutcome run_lifecycle_hook(runtime::RuntimeService& runtime, const std::string& container_id,
                               const nlohmann::json& pod, const nlohmann::json& container,
                               const nlohmann::json& handler, std::chrono::seconds timeout);

}  // namespace k3c::kubelet

// GET /containerLogs/<namespace>/<pod>/<container>: which container instance's log a request
// means (current or previous, from the pod's status as upstream's kubelet decides), and the
// log text, whole or followed while the container runs.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "http/http.h"
#include "runtime/logs/cri_log.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

// The runtime container id whose log to read: from containerStatuses (or the init/ephemeral
// ones) of `pod`; kBadRequest with upstream's kubelet message when there is none
// ("container \"c\" in pod \"p\" is waiting to start: ContainerCreating",
// "previous terminated container \"c\" in pod \"p\" not found", ...).
Result<std::string> log_container_id(const nlohmann::json& pod, const std::string& container,
                                     bool previous);

// The PodLogOptions of a kubelet request (already validated by the API server; malformed
// values are kBadRequest here too).
Result<runtime::LogOptions> log_options_of(const http::Request& request);

// The answer for one container instance: its whole log, or a stream that follows it until
// the container has exited and everything is sent.
http::Response container_log_response(runtime::RuntimeService& runtime,
                                      const std::string& container_id,
                                      const runtime::LogOptions& options);

}  // namespace k3c::kubelet

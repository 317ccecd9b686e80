// The kubelet API's streaming endpoints: /exec, /attach and /portForward. Each finds the
// running container (or the pod's ready sandbox) through the runtime's labels, starts the
// runtime's session and hands the protocol to src/streaming, which answers the upgrade.
// Errors before the upgrade are plain-text HTTP answers as upstream's kubelet gives them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "http/http.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

// /exec/<ns>/<pod>/<container>?command=..&input=1&output=1&error=1&tty=1, and /attach
// (no command). `pod` is the kubelet's copy of the pod.
http::Response serve_exec_or_attach(runtime::RuntimeService& runtime, const nlohmann::json& pod,
                                    const std::string& container, const http::Request& request,
                                    bool attach);

// /portForward/<ns>/<pod>: the ports come in the SPDY streams' headers.
http::Response serve_port_forward(runtime::RuntimeService& runtime, const nlohmann::json& pod,
                                  const http::Request& request);

}  // namespace k3c::kubelet

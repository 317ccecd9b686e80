// The remote-command protocol of kubectl exec and attach, the kubelet's side: the
// handshake picks WebSocket (v5.channel.k8s.io, v4.channel.k8s.io; kubectl 1.30+) or SPDY/3.1
// (X-Stream-Protocol-Version v4.channel.k8s.io; kubectl 1.27-1.29 and the fallback), then the
// session's stdin/stdout/stderr travel on channels 0/1/2, terminal sizes on 4, and the final
// status (Success, or NonZeroExitCode with the exit code as its cause) on channel 3, so that
// `kubectl exec pod -- sh -c 'exit 3'` exits with 3. See doc/streaming.md.
//
// The caller starts the session (runtime::RuntimeService::exec or attach) before answering;
// the upgrade handler copies bytes between the session's fds and the client until the
// process ends or the client goes away (then the session is cancelled).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "http/http.h"
#include "runtime/runtime_service.h"

namespace k3c::streaming {

struct CommandRequest {
  runtime::StreamOptions options;
  std::vector<std::string> command;  // exec's argv (named in the non-zero exit message)
  bool attach = false;               // attach: the container's exit is no failure
};

// The streams a request asks for: the kubelet's query parameters input/output/error/tty
// ("1" or "true"). kBadRequest when none of stdin, stdout, stderr is asked for.
Result<runtime::StreamOptions> stream_options_of(const http::Request& request);

// Whether the request asks for a protocol switch this module speaks, and which.
enum class Transport { kNone, kWebSocket, kSpdy };
Transport transport_of(const http::Request& request);

// The 101 answer whose upgrade runs `session` to its end; a 400 (plain text) when the
// request asks for no protocol spoken here.
http::Response serve_remote_command(const http::Request& request, CommandRequest what,
                                    std::shared_ptr<runtime::StreamSession> session);

// The status written on the error channel when the session has ended (exec: the exit code;
// attach: Success): upstream's metav1.Status JSON.
std::string command_status(const CommandRequest& what, const Result<int>& exit);

}  // namespace k3c::streaming

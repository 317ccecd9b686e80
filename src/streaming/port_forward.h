// The port-forward protocol of kubectl port-forward, the kubelet's side: SPDY/3.1 with
// X-Stream-Protocol-Version portforward.k8s.io, plain (kubectl before 1.31 and the
// fallback) or tunnelled in a WebSocket (subprotocol SPDY/3.1+portforward.k8s.io, kubectl
// 1.31+). Each forwarded connection is a pair of client streams sharing a requestid: an
// error stream and a data stream for one port. The data stream is piped to a socket the
// caller's dialer opens; a failure is written as text on the error stream. See
// doc/streaming.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/status.h"
#include "http/http.h"

namespace k3c::streaming {

// Opens a connected, non-blocking TCP socket to `port` of the pod; the caller of the dialer
// (this module) owns and closes the fd.
using PortDialer = std::function<Result<int>(uint16_t port)>;

struct PortForwardOptions {
  std::string pod;  // named in error messages (the runtime's sandbox id, as containerd does)
  size_t max_connections = 64;  // forwarded connections at once per tunnel; more are refused
  std::chrono::seconds idle_timeout{4 * 3600};  // upstream kubelet's streaming idle timeout
};

// Whether the request is a port-forward upgrade this module speaks.
bool is_port_forward_upgrade(const http::Request& request);

// The 101 answer whose upgrade serves the tunnel until the client closes it; a 400 (plain
// text) when the request asks for no protocol spoken here.
http::Response serve_port_forward(const http::Request& request, PortForwardOptions options,
                                  PortDialer dial);

// Serves the SPDY side of a tunnel over `io` (exposed for tests over in-memory pipes).
void run_port_forward(http::Duplex& io, const PortForwardOptions& options, const PortDialer& dial);

}  // namespace k3c::streaming

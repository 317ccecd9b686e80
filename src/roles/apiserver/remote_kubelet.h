// The kubelet of a node in another process (`k3c agent`), reached over HTTPS at the node's
// InternalIP and status.daemonEndpoints.kubeletEndpoint.Port, as upstream's apiserver does:
// the kubelet's serving certificate verified against the cluster's server CA, the API
// server's kubelet client certificate (kube-apiserver-kubelet-client, system:masters)
// presented. The result is an http::Handler like the in-process kubelet's, so pods/log,
// exec, attach and port-forward pass through it unchanged: plain answers are returned whole,
// 2xx bodies streamed (logs -f), and a 101 from the kubelet switches the client's connection
// too and splices the two byte streams.
//
// Thread-safety: the handler may be called from any number of threads at once.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "http/http.h"
#include "http/http_connection.h"

namespace k3c::apiserver {

// A connect that takes longer than this fails with a 503, never a hang.
inline constexpr std::chrono::seconds kKubeletConnectTimeout{5};

// `tls` trusts the server CA and carries the apiserver's kubelet client certificate.
http::Handler remote_kubelet(std::string node, std::string host, uint16_t port,
                             std::shared_ptr<const http::ClientTlsContext> tls);

// Path and query as a request target, query values percent-encoded.
std::string request_target(const http::Request& request);

// The client's headers a kubelet gets, in-process or remote: not its credentials
// (Authorization, Cookie, Impersonate-*: the API server authenticates to the kubelet with its
// own certificate, and a node must not learn its users' tokens), nor the framing the proxy
// sets itself (Host, Content-Length, Transfer-Encoding).
std::vector<std::pair<std::string, std::string>> forwarded_headers(const http::Request& request);

}  // namespace k3c::apiserver

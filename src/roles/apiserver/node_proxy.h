// The node proxy, `/api/v1/nodes/{id}/proxy[/{path}]`: what upstream's node ProxyREST and
// node.ResourceLocation do, in pieces that hold no state (tested in node_proxy_test.cpp).
// Actions::node_proxy (node_proxy.cpp) puts them together: the Node is read (404 when it is
// missing), the request goes to the node's kubelet through Actions::kubelet_of, in-process or
// over HTTPS, and the kubelet's answer comes back as it is (status, headers, a streamed
// body, a 101 and its protocol).
//
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "http/http.h"

namespace k3c::apiserver {

// The {id} of nodes/{id}/proxy, as upstream's SplitSchemeNamePort reads it: "name",
// "name:port" or "scheme:name:port"; the scheme "", "http" or "https", the name not empty,
// the port any text (upstream allows a named port). nullopt for anything else (upstream:
// 400 `invalid node request "id"`).
struct NodeProxyId {
  std::string scheme;
  std::string name;
  std::string port;
};
std::optional<NodeProxyId> split_scheme_name_port(std::string_view id);

// The path the kubelet is asked for: what follows `.../nodes/{id}/proxy` in the request's
// path or, for `.../proxy` itself, its `path` query parameter (upstream's NodeProxyOptions);
// cleaned as Go's path.Join does (".", "..", repeated slashes), with a leading slash and the
// request's trailing slash kept. "" when it names none: upstream then redirects a GET or HEAD
// to `.../proxy/` (see node_proxy_redirect).
std::string node_proxy_path(const http::Request& request, std::string_view id);

// The 301 to `<request path>/` (query kept) that upstream answers for a GET or HEAD of
// `.../proxy` without a path.
http::Response node_proxy_redirect(const http::Request& request);

// What the kubelet gets: the method, `path` ("/" for none), the query and body as sent and the
// client's headers without its credentials (remote_kubelet.h forwarded_headers).
http::Request node_proxy_request(const http::Request& request, std::string path);

}  // namespace k3c::apiserver

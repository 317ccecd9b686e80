// nodes/{id}/proxy (see node_proxy.h).
#include "roles/apiserver/node_proxy.h"

#include <vector>

#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/remote_kubelet.h"

namespace k3c::apiserver {
namespace {

// Go's path.Clean of a path that starts with '/': no empty or "." segments, ".." removes the
// one before it (never above the root).
std::string clean_rooted(std::string_view path) {
  std::vector<std::string_view> kept;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
    } else if (!segment.empty() && segment != ".") {
      kept.push_back(segment);
    }
    start = end + 1;
  }
  std::string out;
  for (std::string_view segment : kept) (out += '/') += segment;
  return out.empty() ? "/" : out;
}

// What follows the segments "nodes", `id`, "proxy" of `path` ("" when nothing does), or
// nullopt when they are not in it.
std::optional<std::string_view> after_proxy(std::string_view path, std::string_view id) {
  std::string_view window[3];
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) {
      window[0] = window[1];
      window[1] = window[2];
      window[2] = path.substr(start, end - start);
      if (window[0] == "nodes" && window[1] == id && window[2] == "proxy") return path.substr(end);
    }
    start = end + 1;
  }
  return std::nullopt;
}

// The methods upstream's ProxyREST connects.
bool proxied_method(const std::string& method) {
  for (const char* m : {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
    if (method == m) return true;
  return false;
}

}  // namespace

std::optional<NodeProxyId> split_scheme_name_port(std::string_view id) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t colon = id.find(':', start);
    parts.push_back(id.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  NodeProxyId out;
  if (parts.size() == 1) {
    out.name = parts[0];
  } else if (parts.size() == 2) {
    out.name = parts[0];
    out.port = parts[1];
  } else if (parts.size() == 3) {
    out.scheme = parts[0];
    out.name = parts[1];
    out.port = parts[2];
  } else {
    return std::nullopt;
  }
  if (out.name.empty()) return std::nullopt;
  if (!out.scheme.empty() && out.scheme != "http" && out.scheme != "https") return std::nullopt;
  return out;
}

std::string node_proxy_path(const http::Request& request, std::string_view id) {
  std::string_view rest = after_proxy(request.path, id).value_or("");
  std::string path;
  if (rest.empty()) {
    // `.../proxy` itself: the path comes from the options, as a query parameter.
    path = std::string(request.param("path").value_or(""));
    if (!path.empty() && path.front() != '/') path.insert(path.begin(), '/');
  } else {
    path = std::string(rest);
  }
  if (path.empty()) return "";
  std::string cleaned = clean_rooted(path);
  if (path.back() == '/' && cleaned.back() != '/') cleaned += '/';
  return cleaned;
}

http::Response node_proxy_redirect(const http::Request& request) {
  std::string_view target = request.target;
  const size_t query = target.find('?');
  std::string location = std::string(target.substr(0, query)) + "/";
  if (query != std::string_view::npos && query + 1 < target.size())
    location += target.substr(query);
  http::Response r;
  r.status = 301;
  r.set_header("Location", std::move(location));
  return r;
}

http::Request node_proxy_request(const http::Request& request, std::string path) {
  http::Request out;
  out.method = request.method;
  out.path = path.empty() ? "/" : std::move(path);
  out.query = request.query;
  out.target = request_target(out);
  out.headers = forwarded_headers(request);
  out.body = request.body;
  out.peer = request.peer;
  out.remote_address = request.remote_address;
  return out;
}

http::Response Actions::node_proxy(const Call& c) {
  if (!proxied_method(c.request.method)) return error_response(method_not_allowed());
  std::optional<NodeProxyId> id = split_scheme_name_port(c.info.name);
  if (!id) return error_response(bad_request("invalid node request \"" + c.info.name + "\""));
  const api::Resource* nodes = registry_->find("", "v1", "nodes");
  auto node = actions::read(cache_, nodes->storage_key("", id->name));
  if (!node.ok()) {
    if (node.error().code == Code::kNotFound)
      return error_response(not_found("", "nodes", id->name));
    return error_response(node.error());
  }
  // Upstream goes to another port of the node (no port, or the kubelet's, is the kubelet)
  // with the API server's plain proxy transport; k3c has only its kubelet client.
  const std::string kubelet_port =
      std::to_string(actions::kubelet_port(node.value().object).value_or(kDefaultKubeletPort));
  if (!id->port.empty() && id->port != kubelet_port) {
    return error_response(
        api_error(Code::kNotImplemented, "proxying to port " + id->port + " of node " + id->name +
                                             " is not implemented yet in k3c (only to its kubelet, "
                                             "port " +
                                             kubelet_port + ")"));
  }
  std::string path = node_proxy_path(c.request, c.info.name);
  const bool upgrade = c.request.header("upgrade").has_value();
  if (path.empty() && !upgrade && (c.request.method == "GET" || c.request.method == "HEAD"))
    return node_proxy_redirect(c.request);
  auto kubelet = kubelet_of(id->name);
  if (!kubelet.ok()) return error_response(kubelet.error());
  http::Request forward = node_proxy_request(c.request, std::move(path));
  return kubelet.value()(forward);
}

}  // namespace k3c::apiserver

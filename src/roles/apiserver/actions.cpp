// Dispatch of the non-CRUD calls (see actions.h), and the helpers the action files share.
#include "roles/apiserver/actions.h"

#include "api/json_fields.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/remote_kubelet.h"

namespace k3c::apiserver {

namespace actions {

http::Request synthetic(const http::Request& request, std::string method, std::string body) {
  http::Request r;
  r.method = std::move(method);
  r.target = request.target;
  r.path = request.path;
  for (const auto& [k, v] : request.query) {
    if (k == "dryRun") r.query.emplace_back(k, v);
  }
  r.headers = {{"content-type", "application/json"}};
  r.body = std::move(body);
  r.peer = request.peer;
  r.remote_address = request.remote_address;
  return r;
}

bool dry_run(const http::Request& request) {
  for (auto v : request.params("dryRun")) {
    if (v == "All") return true;
  }
  return false;
}

http::Response created_success() {
  nlohmann::json s = success_status();
  s["code"] = 201;
  return json_response(201, s.dump());
}

ApiResult<Stored> read(WatchCache& cache, const std::string& key) {
  auto o = cache.get(key, 0);
  if (!o.is_ok()) return from_status(o.status());
  nlohmann::json object = nlohmann::json::parse((*o)->json.text(), nullptr, false);
  if (!object.is_object()) return api_error(Code::kInternal, "stored object is not JSON");
  return Stored{std::move(object), (*o)->revision};
}

std::optional<uint16_t> kubelet_port(const nlohmann::json& node) {
  const nlohmann::json& endpoint =
      api::member(api::member(api::member(node, "status"), "daemonEndpoints"), "kubeletEndpoint");
  const int64_t port = endpoint.is_object() ? endpoint.value("Port", int64_t{0}) : 0;
  if (port <= 0 || port > 65535) return std::nullopt;
  return static_cast<uint16_t>(port);
}

}  // namespace actions

namespace {

// The proxies that need the pod network, and what each would do.
const char* unbuilt_proxy(const Call& c) {
  if (c.info.subresource != "proxy" || !c.resource.group.empty()) return nullptr;
  if (c.resource.plural == "pods") return "proxying to pods";
  if (c.resource.plural == "services") return "proxying to services";
  return nullptr;
}

// Those proxies are not built yet: a clear 501.
http::Response proxy_not_built(const Call& c, const char* what) {
  std::string target = c.resource.plural + "/" + c.info.name + "/" + c.info.subresource;
  return error_response(api_error(Code::kNotImplemented, std::string(what) + " (" + target +
                                                             ") is not implemented yet in k3c"));
}

}  // namespace

std::optional<http::Response> Actions::serve(const Call& c) {
  const std::string& g = c.resource.group;
  const std::string& p = c.resource.plural;
  const std::string& sub = c.info.subresource;
  const std::string& v = c.info.verb;
  auto only = [&](bool allowed, auto&& serve) -> http::Response {
    if (!allowed) return error_response(method_not_allowed());
    return serve();
  };
  if (sub == "scale")
    return only(v == "get" || v == "update" || v == "patch", [&] { return scale(c); });
  if (g.empty() && p == "pods" && sub == "log") return only(v == "get", [&] { return pod_log(c); });
  // kubectl 1.30+ opens exec and attach (1.31+ port-forward) as a WebSocket GET; older ones,
  // and the fallback, POST with Upgrade: SPDY/3.1.
  if (g.empty() && p == "pods" && (sub == "exec" || sub == "attach" || sub == "portforward"))
    return only(v == "get" || v == "create", [&] { return pod_stream(c); });
  // Every method upstream's ProxyREST connects; node_proxy answers the others 405.
  if (g.empty() && p == "nodes" && sub == "proxy") return node_proxy(c);
  if (const char* what = unbuilt_proxy(c)) return proxy_not_built(c, what);
  bool create = v == "create";
  if (g.empty() && p == "pods" && sub == "binding") {
    return only(create, [&] { return bind(c, c.info.name); });
  }
  if (g.empty() && p == "bindings" && sub.empty()) {
    return only(create && c.info.name.empty(), [&] { return bind(c, ""); });
  }
  if (g.empty() && p == "pods" && sub == "eviction") return only(create, [&] { return evict(c); });
  if (g.empty() && p == "serviceaccounts" && sub == "token") {
    return only(create, [&] { return token_request(c); });
  }
  if (!sub.empty()) return std::nullopt;
  if (g.empty() && p == "componentstatuses")
    return only(v == "get" || v == "list", [&] { return component_statuses(c); });
  bool collection_create = create && c.info.name.empty();
  if (g == "authentication.k8s.io" && p == "selfsubjectreviews") {
    return only(collection_create, [&] { return self_subject_review(c); });
  }
  if (g == "authentication.k8s.io" && p == "tokenreviews") {
    return only(collection_create, [&] { return token_review(c); });
  }
  if (g == "authorization.k8s.io" &&
      (p == "selfsubjectaccessreviews" || p == "subjectaccessreviews" ||
       p == "localsubjectaccessreviews")) {
    return only(collection_create, [&] { return access_review(c); });
  }
  if (g == "authorization.k8s.io" && p == "selfsubjectrulesreviews") {
    return only(collection_create, [&] { return rules_review(c); });
  }
  return std::nullopt;
}

ApiResult<nlohmann::json> Actions::read_pod(const Call& c) {
  const api::Resource* pods = registry_->find("", "v1", "pods");
  auto current = actions::read(cache_, pods->storage_key(c.info.namespace_, c.info.name));
  if (!current.ok()) {
    if (current.error().code == Code::kNotFound) return not_found("", "pods", c.info.name);
    return current.error();
  }
  return std::move(current.value().object);
}

ApiResult<http::Handler> Actions::kubelet_of(const std::string& node) {
  if (kubelets_)
    if (std::optional<http::Handler> local = kubelets_->find(node)) return std::move(*local);
  auto cannot = [&](const std::string& why) {
    return api_error(Code::kServiceUnavailable,
                     "cannot reach the kubelet of node " + node + ": " + why);
  };
  if (!kubelet_tls_) return cannot("no kubelet client credentials");
  const api::Resource* nodes = registry_->find("", "v1", "nodes");
  auto stored = actions::read(cache_, nodes->storage_key("", node));
  if (!stored.ok()) return cannot("node not found");
  const nlohmann::json& status = api::member(stored.value().object, "status");
  std::string address;
  for (const auto& a : api::member(status, "addresses"))
    if (a.is_object() && a.value("type", "") == "InternalIP" && address.empty())
      address = a.value("address", "");
  std::optional<uint16_t> port = actions::kubelet_port(stored.value().object);
  if (address.empty()) return cannot("the node reports no InternalIP");
  if (!port) return cannot("the node reports no kubelet port");
  return remote_kubelet(node, address, *port, kubelet_tls_);
}

ApiResult<nlohmann::json> Actions::body_of(const Call& c, std::string_view api_version,
                                           std::string_view kind) {
  auto body = decode_body(c.request, codecs());
  if (!body.ok()) return body;
  nlohmann::json& o = body.value();
  if (!o.is_object())
    return bad_request("the request body must be a JSON object (" + std::string(kind) + ")");
  std::string k = o.value("kind", ""), av = o.value("apiVersion", "");
  // Another version of the same group (policy/v1beta1 Eviction) has the same fields here.
  auto group_of = [](std::string_view gv) { return gv.substr(0, gv.rfind('/') + 1); };
  if ((!k.empty() && k != kind) || (!av.empty() && group_of(av) != group_of(api_version))) {
    return bad_request("expected " + std::string(api_version) + " " + std::string(kind) + ", got " +
                       (av.empty() ? "?" : av) + " " + (k.empty() ? "?" : k));
  }
  o["apiVersion"] = api_version;
  o["kind"] = kind;
  if (!o.contains("metadata") || !o["metadata"].is_object())
    o["metadata"] = nlohmann::json::object();
  return body;
}

}  // namespace k3c::apiserver

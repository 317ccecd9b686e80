// Request dispatch (see router.h).
#include "roles/apiserver/router.h"

#include "core/prometheus_text.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/authorizer.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/csr_strategy.h"
#include "roles/apiserver/request_info.h"

namespace k3c::apiserver {
namespace {

http::Response text_answer(int status, std::string body) {
  return body_response(status, std::move(body), "text/plain; charset=utf-8");
}

http::Response unauthorized() {
  return error_response(api_error(Code::kUnauthorized, "Unauthorized"));
}

http::Response not_implemented(std::string what) {
  return error_response(api_error(Code::kNotImplemented, std::move(what)));
}

// Paths anyone may read, as upstream's system:public-info-viewer allows.
bool is_public(const std::string& path) {
  return path == "/version" || path == "/healthz" || path == "/livez" || path == "/readyz" ||
         path.rfind("/healthz/", 0) == 0 || path.rfind("/livez/", 0) == 0 ||
         path.rfind("/readyz/", 0) == 0;
}

// Request bodies are checked for shape but not yet against full schemas, so a field of the
// wrong JSON type can still reach code that reads it (nlohmann throws type_error then). That
// is the client's mistake: a 400 naming it, not a 500.
template <typename F>
auto answer_bad_json(F&& serve) -> decltype(serve()) {
  try {
    return serve();
  } catch (const nlohmann::json::exception& e) {
    return error_response(
        bad_request(std::string("the request body has a field of the wrong type: ") + e.what()));
  }
}

// Upstream's request kinds for apiserver_current_inflight_requests.
bool is_mutating(const std::string& method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

// A streamed body that also holds a token until the stream is released.
struct StreamWithToken {
  std::shared_ptr<http::BodyStream> stream;
  std::shared_ptr<void> token;
};

}  // namespace

Router::Router(const ServedApi& api, Rest& rest, Actions& actions,
               const TokenAuthenticator& authenticator, const HealthChecks& health,
               const ServerMetrics& metrics)
    : api_(api),
      rest_(rest),
      actions_(actions),
      authn_(authenticator),
      health_(health),
      metrics_(metrics) {}

http::Response Router::handle(http::Request& request) {
  const auto started = std::chrono::steady_clock::now();
  auto in_flight = metrics_.requests().in_flight(is_mutating(request.method));
  const auto info = parse_request_info(request);
  const auto api = api_.current();
  http::Response response = answer_bad_json([&] { return dispatch(request, info, *api); });
  record(request, info, *api, response, started);
  return response;
}

void Router::record(const http::Request& request, const std::optional<RequestInfo>& info,
                    const ApiSnapshot& api, http::Response& response,
                    std::chrono::steady_clock::time_point started) {
  auto labels = route_labels(request, info, *api.registry, response.status);
  if (!labels) return;
  RequestMetrics& metrics = metrics_.requests();
  if (response.stream) {
    auto held = std::make_shared<StreamWithToken>(StreamWithToken{
        std::move(response.stream), metrics.long_running(*labels, response.status, started)});
    http::BodyStream* stream = held->stream.get();
    response.stream = std::shared_ptr<http::BodyStream>(std::move(held), stream);
  } else if (response.upgrade) {
    response.upgrade = [serve = std::move(response.upgrade),
                        token = metrics.long_running(*labels, response.status, started)](
                           http::Duplex& duplex) mutable {
      serve(duplex);
      token.reset();
    };
  } else {
    metrics.observe(*labels, response.status, std::chrono::steady_clock::now() - started);
  }
}

http::Response Router::dispatch(http::Request& request, const std::optional<RequestInfo>& info,
                                const ApiSnapshot& api) {
  if (auto e = authn_.authenticate(request)) return error_response(*e);
  if (!request.peer && !is_public(request.path)) return unauthorized();
  if (request.peer) {
    Attributes attributes = attributes_of(request, info);
    Decision d = authorize(*request.peer, attributes);
    if (!d.allowed) return error_response(forbidden(*request.peer, attributes, d.reason));
    // A WebSocket GET that opens exec, attach or port-forward also needs create, the verb of
    // the older clients' POST (upstream 1.31+: AuthorizePodWebsocketUpgradeCreatePermission).
    const std::string& sub = attributes.subresource;
    if (attributes.verb == "get" && attributes.group.empty() && attributes.resource == "pods" &&
        (sub == "exec" || sub == "attach" || sub == "portforward")) {
      attributes.verb = "create";
      d = authorize(*request.peer, attributes);
      if (!d.allowed) return error_response(forbidden(*request.peer, attributes, d.reason));
    }
  }
  if (!info) return non_resource(api, request);
  if (!info->is_resource_request) return discovery(api, request, *info);
  return resource(api, request, *info);
}

std::optional<http::Response> Router::handle_fast(http::Request& request) {
  if (request.method != "GET") return std::nullopt;
  const auto started = std::chrono::steady_clock::now();
  const auto info = parse_request_info(request);
  const auto api = api_.current();
  auto response = answer_bad_json([&] { return dispatch_fast(request, info, *api); });
  if (response) record(request, info, *api, *response, started);
  return response;
}

std::optional<http::Response> Router::dispatch_fast(http::Request& request,
                                                    const std::optional<RequestInfo>& info,
                                                    const ApiSnapshot& api) {
  // Everything but resources (version, health, discovery, OpenAPI) is served from memory,
  // except /metrics, which counts objects in the datastore.
  if (!info && request.path == "/metrics") return std::nullopt;
  if (!info || !info->is_resource_request) return dispatch(request, info, api);
  if (!request.peer || info->verb != "get" || !info->subresource.empty()) return std::nullopt;
  // A refusal is answered by the full path, which words it.
  if (!authorize(*request.peer, attributes_of(request, info)).allowed) return std::nullopt;
  const api::Resource* r = api.registry->find(info->group, info->version, info->resource);
  if (!r || !r->stored() || !r->has_verb("get") || (r->namespaced && info->namespace_.empty())) {
    return std::nullopt;
  }
  return rest_.get_if_ready(
      {*info, *r, request, api.custom_resource(info->group, info->version, info->resource)});
}

http::Response Router::non_resource(const ApiSnapshot& api, const http::Request& request) {
  const std::string& p = request.path;
  if (p == "/version") return json_response(200, api.discovery.version());
  if (auto health = health_.serve(request)) return std::move(*health);
  if (p == "/metrics") {
    if (request.method != "GET") return error_response(method_not_allowed());
    return body_response(200, metrics_.text(*api.registry), kPrometheusTextType);
  }
  if (p == "/openapi/v2") {
    // kubectl 1.27/1.28 ask for protobuf; anything else gets the same document as JSON.
    std::string_view accept = request.header("accept").value_or("");
    if (accept.find(kOpenApiV2ProtobufPrefix) == std::string_view::npos) {
      return json_response(200, api.openapi_v2.json());
    }
    http::Response r;
    r.status = 200;
    r.body = api.openapi_v2.protobuf();
    r.set_header("Content-Type", std::string(kOpenApiV2ProtobufType));
    return r;
  }
  if (p == "/openapi/v3" || p == "/openapi/v3/") return json_response(200, api.openapi.root());
  if (p.rfind("/openapi/v3/", 0) == 0) {
    if (const std::string* doc = api.openapi.group_version(p.substr(12)))
      return json_response(200, *doc);
    return text_answer(404, "404 page not found\n");
  }
  return text_answer(404, "404 page not found\n");
}

http::Response Router::discovery(const ApiSnapshot& api, const http::Request& request,
                                 const RequestInfo& info) {
  if (request.method != "GET" && request.method != "HEAD")
    return error_response(method_not_allowed());
  std::string_view accept = request.header("accept").value_or("");
  if (info.group.empty() && info.version.empty()) {
    // /api or /apis: aggregated when asked for, legacy otherwise.
    auto root = info.api_prefix == "api" ? api::DiscoveryRoot::kApi : api::DiscoveryRoot::kApis;
    if (auto v = api::negotiate_aggregated_discovery(accept)) {
      http::Response r = json_response(200, api.discovery.aggregated(root, *v));
      r.set_header("Content-Type", std::string(api::content_type_of(*v)));
      return r;
    }
    return json_response(
        200, info.api_prefix == "api" ? api.discovery.api_versions() : api.discovery.group_list());
  }
  if (info.version.empty()) {
    if (const std::string* g = api.discovery.group(info.group)) return json_response(200, *g);
    return error_response(resource_not_found());
  }
  if (const std::string* l = api.discovery.resource_list(info.group, info.version)) {
    return json_response(200, *l);
  }
  return error_response(resource_not_found());
}

http::Response Router::resource(const ApiSnapshot& api, const http::Request& request,
                                const RequestInfo& info) {
  const api::Resource* r = api.registry->find(info.group, info.version, info.resource);
  if (!r) return error_response(resource_not_found());
  if (!info.subresource.empty() && !r->subresource(info.subresource)) {
    return error_response(resource_not_found());
  }
  if (r->namespaced && info.namespace_.empty() && info.verb != "list" && info.verb != "watch") {
    return error_response(resource_not_found());
  }
  const CustomResource* custom = api.custom_resource(info.group, info.version, info.resource);
  if (custom && info.subresource == "scale") return rest_.custom_scale({info, *r, request, custom});
  if (!custom) {
    if (auto answered = actions_.serve({info, *r, request})) return std::move(*answered);
  }
  if (!r->stored()) {
    return not_implemented(qualified_resource(r->group, r->plural) +
                           " is not implemented yet in k3c");
  }
  if (!info.subresource.empty() && info.subresource != "status" && info.subresource != "finalize" &&
      !(info.subresource == "approval" && csr::is_csr(*r))) {
    return not_implemented("the " + info.subresource + " subresource of " +
                           qualified_resource(r->group, r->plural) +
                           " is not implemented yet in k3c");
  }
  Call call{info, *r, request, custom};
  const std::string& v = info.verb;
  auto allowed = [&](const char* verb) { return r->has_verb(verb) || !info.subresource.empty(); };
  if (v == "get" && allowed("get")) return rest_.get(call);
  if (v == "list" && allowed("list")) return rest_.list(call);
  if (v == "watch" && allowed("watch")) return rest_.watch(call);
  if (v == "create" && allowed("create") && info.name.empty()) return rest_.create(call);
  if (v == "update" && allowed("update")) return rest_.update(call);
  if (v == "patch" && allowed("patch")) return rest_.patch(call);
  if (v == "delete" && allowed("delete") && info.subresource.empty()) return rest_.remove(call);
  if (v == "deletecollection" && allowed("deletecollection")) return rest_.remove_collection(call);
  return error_response(method_not_allowed());
}

}  // namespace k3c::apiserver

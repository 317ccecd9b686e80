// The API server's handler chain: authentication (client certificates, then service-account
// bearer tokens), authorization (authorizer.h: system:masters may do everything until RBAC
// lands), then dispatch to the non-resource endpoints (/version, health, metrics, discovery,
// OpenAPI), to the actions (reviews and subresources, actions.h) or to the REST verbs. Every
// request is counted in the metrics (request_metrics.h).
//
// Thread-safety: handle() from any thread. Each request reads one snapshot of the served
// API (served_api.h), which CRDs change while the server runs.
#pragma once

#include <memory>

#include "api/discovery.h"
#include "api/registry.h"
#include "http/http.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/health.h"
#include "roles/apiserver/openapi.h"
#include "roles/apiserver/request_info.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/served_api.h"
#include "roles/apiserver/server_metrics.h"
#include "roles/apiserver/token_authenticator.h"

namespace k3c::apiserver {

class Router {
 public:
  Router(const ServedApi& api, Rest& rest, Actions& actions,
         const TokenAuthenticator& authenticator, const HealthChecks& health,
         const ServerMetrics& metrics);
  http::Response handle(http::Request& request);
  // The non-blocking part: a GET of one object the watch cache can answer now. Called on
  // the HTTPS server's network threads; nullopt hands the request to handle().
  std::optional<http::Response> handle_fast(http::Request& request);

 private:
  http::Response dispatch(http::Request& request, const std::optional<RequestInfo>& info,
                          const ApiSnapshot& api);
  std::optional<http::Response> dispatch_fast(http::Request& request,
                                              const std::optional<RequestInfo>& info,
                                              const ApiSnapshot& api);
  // Counts the answered request in the metrics; a response that streams on (a watch, a
  // followed log, an upgraded connection) carries the token that ends its count.
  void record(const http::Request& request, const std::optional<RequestInfo>& info,
              const ApiSnapshot& api, http::Response& response,
              std::chrono::steady_clock::time_point started);
  http::Response discovery(const ApiSnapshot& api, const http::Request& request,
                           const RequestInfo& info);
  http::Response resource(const ApiSnapshot& api, const http::Request& request,
                          const RequestInfo& info);
  http::Response non_resource(const ApiSnapshot& api, const http::Request& request);

  const ServedApi& api_;
  Rest& rest_;
  Actions& actions_;
  const TokenAuthenticator& authn_;
  const HealthChecks& health_;
  const ServerMetrics& metrics_;
};

}  // namespace k3c::apiserver

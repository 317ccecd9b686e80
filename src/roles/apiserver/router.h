// The API server's handler chain: authentication (client certificates, then service-account
// bearer tokens), authorization (authorizer.h: system:masters may do everything until RBAC
// lands), then dispatch to the non-resource endpoints (/version, health, discovery,
// OpenAPI), to the actions (reviews and subresources, actions.h) or to the REST verbs.
//
// Thread-safety: handle() from any thread; the router's state is immutable after
// construction.
#pragma once

#include <memory>

#include "api/discovery.h"
#include "api/registry.h"
#include "http/http.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/openapi.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/token_authenticator.h"

namespace k3c::apiserver {

class Router {
 public:
  Router(std::shared_ptr<const api::ResourceRegistry> registry, api::DiscoveryDocuments discovery,
         const api::SchemaSet& schemas, Rest& rest, Actions& actions,
         const TokenAuthenticator& authenticator);
  http::Response handle(http::Request& request);
  // The non-blocking part: a GET of one object the watch cache can answer now. Called on
  // the HTTPS server's network threads; nullopt hands the request to handle().
  std::optional<http::Response> handle_fast(http::Request& request);

 private:
  http::Response dispatch(http::Request& request);
  std::optional<http::Response> dispatch_fast(http::Request& request);
  http::Response discovery(const http::Request& request, const RequestInfo& info);
  http::Response resource(const http::Request& request, const RequestInfo& info);
  http::Response non_resource(const http::Request& request);

  std::shared_ptr<const api::ResourceRegistry> registry_;
  api::DiscoveryDocuments discovery_;
  OpenApiV3 openapi_;
  OpenApiV2 openapi_v2_;
  Rest& rest_;
  Actions& actions_;
  const TokenAuthenticator& authn_;
};

}  // namespace k3c::apiserver

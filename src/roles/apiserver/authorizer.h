// Authorization until RBAC lands: members of system:masters may do everything (upstream's
// privileged-group authorizer, which answers before RBAC and gives no reason); every
// authenticated user may read discovery, version, health and OpenAPI (upstream's
// system:discovery and system:public-info-viewer) and ask about itself (system:basic-user:
// self subject reviews). Everything else is denied with a reason saying why, rather than
// allowed by a pretended RBAC.
//
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string>

#include "http/http.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/request_info.h"

namespace k3c::apiserver {

inline constexpr std::string_view kRbacNotImplemented =
    "RBAC authorization is not implemented in k3c yet";

// What is asked, as upstream's authorizer.Attributes.
struct Attributes {
  bool resource_request = false;
  std::string verb;  // get, list, create, ... (non-resource: the lower-cased method)
  std::string namespace_;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;  // non-resource requests
};

struct Decision {
  bool allowed = false;
  std::string reason;
};

Attributes attributes_of(const http::Request& request, const std::optional<RequestInfo>& info);
Decision authorize(const http::PeerIdentity& user, const Attributes& attributes);
// Upstream's 403: `pods "x" is forbidden: User "u" cannot get resource "pods" in API group
// "" in the namespace "ns": <reason>`.
ApiError forbidden(const http::PeerIdentity& user, const Attributes& attributes,
                   const std::string& reason);

}  // namespace k3c::apiserver

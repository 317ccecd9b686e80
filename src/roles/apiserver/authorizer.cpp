// Authorization before RBAC (see authorizer.h).
#include "roles/apiserver/authorizer.h"

#include <algorithm>
#include <cctype>

#include "roles/apiserver/token_authenticator.h"

namespace k3c::apiserver {
namespace {

bool in_group(const http::PeerIdentity& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

// system:discovery and system:public-info-viewer's non-resource URLs ("x/*" = below x).
bool discovery_path(const std::string& p) {
  for (const char* exact :
       {"/api", "/apis", "/healthz", "/livez", "/readyz", "/openapi", "/version", "/version/"}) {
    if (p == exact) return true;
  }
  for (const char* prefix : {"/api/", "/apis/", "/openapi/", "/healthz/", "/livez/", "/readyz/"}) {
    if (p.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool self_review(const Attributes& a) {
  if (a.verb != "create") return false;
  if (a.group == "authorization.k8s.io") {
    return a.resource == "selfsubjectaccessreviews" || a.resource == "selfsubjectrulesreviews";
  }
  return a.group == "authentication.k8s.io" && a.resource == "selfsubjectreviews";
}

}  // namespace

Attributes attributes_of(const http::Request& request, const std::optional<RequestInfo>& info) {
  Attributes a;
  a.path = request.path;
  if (info && info->is_resource_request) {
    a.resource_request = true;
    a.verb = info->verb;
    a.namespace_ = info->namespace_;
    a.group = info->group;
    a.version = info->version;
    a.resource = info->resource;
    a.subresource = info->subresource;
    a.name = info->name;
    return a;
  }
  a.verb = request.method;
  std::transform(a.verb.begin(), a.verb.end(), a.verb.begin(), ::tolower);
  if (a.verb == "head") a.verb = "get";
  return a;
}

Decision authorize(const http::PeerIdentity& user, const Attributes& a) {
  if (in_group(user, kMastersGroup)) return {true, ""};
  if (!a.resource_request && a.verb == "get" && discovery_path(a.path)) return {true, ""};
  if (a.resource_request && self_review(a) && in_group(user, kAuthenticatedGroup)) {
    return {true, ""};
  }
  return {false, std::string(kRbacNotImplemented)};
}

ApiError forbidden(const http::PeerIdentity& user, const Attributes& a, const std::string& reason) {
  std::string what;
  if (!a.resource_request) {
    what = "User \"" + user.user + "\" cannot " + a.verb + " path \"" + a.path + "\"";
  } else {
    std::string resource = a.resource;
    if (!a.subresource.empty()) resource += "/" + a.subresource;
    what = "User \"" + user.user + "\" cannot " + a.verb + " resource \"" + resource +
           "\" in API group \"" + a.group + "\"";
    what += a.namespace_.empty() ? " at the cluster scope"
                                 : " in the namespace \"" + a.namespace_ + "\"";
  }
  if (!reason.empty()) what += ": " + reason;
  ApiError e;
  e.code = Code::kForbidden;
  if (!a.resource_request || a.resource.empty()) {
    e.message = "forbidden: " + what;
    return e;
  }
  std::string qualified = qualified_resource(a.group, a.resource);
  e.message = a.name.empty() ? qualified + " is forbidden: " + what
                             : qualified + " \"" + a.name + "\" is forbidden: " + what;
  e.name = a.name;
  e.group = a.group;
  e.kind = a.resource;
  return e;
}

}  // namespace k3c::apiserver

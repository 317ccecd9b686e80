// Authorization before RBAC: system:masters may do everything; others only discovery and
// self reviews, and the 403 reads as upstream's.
#include "roles/apiserver/authorizer.h"

#include <catch2/catch.hpp>

namespace k3c::apiserver {
namespace {

Attributes resource(std::string verb, std::string group, std::string res, std::string ns = "",
                    std::string name = "") {
  Attributes a;
  a.resource_request = true;
  a.verb = std::move(verb);
  a.group = std::move(group);
  a.resource = std::move(res);
  a.namespace_ = std::move(ns);
  a.name = std::move(name);
  return a;
}

TEST_CASE("system:masters may do everything, with no reason given") {
  http::PeerIdentity admin{"system:admin", {"system:masters", "system:authenticated"}, "", {}};
  Decision d = authorize(admin, resource("delete", "", "nodes", "", "n1"));
  CHECK(d.allowed);
  CHECK(d.reason.empty());
}

TEST_CASE("others may read discovery and ask about themselves, nothing else") {
  http::PeerIdentity sa{
      "system:serviceaccount:default:bot",
      {"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"},
      "uid",
      {}};
  Attributes discovery;
  discovery.verb = "get";
  discovery.path = "/apis/apps/v1";
  CHECK(authorize(sa, discovery).allowed);
  CHECK(authorize(sa, resource("create", "authentication.k8s.io", "selfsubjectreviews")).allowed);
  CHECK(authorize(sa, resource("create", "authorization.k8s.io", "selfsubjectaccessreviews"))
            .allowed);
  Attributes list = resource("list", "", "pods", "default");
  Decision d = authorize(sa, list);
  CHECK_FALSE(d.allowed);
  CHECK(d.reason == "RBAC authorization is not implemented in k3c yet");
  ApiError e = forbidden(sa, list, d.reason);
  CHECK(e.code == Code::kForbidden);
  CHECK(e.message ==
        "pods is forbidden: User \"system:serviceaccount:default:bot\" cannot list resource "
        "\"pods\" in API group \"\" in the namespace \"default\": RBAC authorization is not "
        "implemented in k3c yet");
  Attributes get = resource("get", "apps", "deployments", "", "web");
  get.subresource = "scale";
  CHECK(forbidden(sa, get, "").message ==
        "deployments.apps \"web\" is forbidden: User \"system:serviceaccount:default:bot\" "
        "cannot get resource \"deployments/scale\" in API group \"apps\" at the cluster scope");
  Attributes metrics;
  metrics.verb = "get";
  metrics.path = "/metrics";
  CHECK_FALSE(authorize(sa, metrics).allowed);
  CHECK(forbidden(sa, metrics, "").message ==
        "forbidden: User \"system:serviceaccount:default:bot\" cannot get path \"/metrics\"");
}

}  // namespace
}  // namespace k3c::apiserver

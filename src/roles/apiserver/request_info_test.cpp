#include "roles/apiserver/request_info.h"

#include <catch2/catch.hpp>

#include "request_to.h"

namespace k3c::apiserver {
namespace {

RequestInfo parse(std::string method, std::string target) {
  auto info = parse_request_info(testing::request_to(std::move(method), std::move(target)));
  REQUIRE(info);
  return *info;
}

TEST_CASE("resource paths parse as upstream's RequestInfoFactory does") {
  auto a = parse("GET", "/api/v1/namespaces/default/pods/web/log");
  REQUIRE(a.is_resource_request);
  REQUIRE(a.group.empty());
  REQUIRE(a.version == "v1");
  REQUIRE(a.namespace_ == "default");
  REQUIRE(a.resource == "pods");
  REQUIRE(a.name == "web");
  REQUIRE(a.subresource == "log");
  REQUIRE(a.verb == "get");

  auto b = parse("GET", "/apis/apps/v1/deployments?watch=true");
  REQUIRE(b.group == "apps");
  REQUIRE(b.namespace_.empty());
  REQUIRE(b.verb == "watch");

  auto c = parse("GET", "/api/v1/namespaces/foo/status");
  REQUIRE(c.resource == "namespaces");
  REQUIRE(c.name == "foo");
  REQUIRE(c.subresource == "status");
  REQUIRE(c.namespace_.empty());

  REQUIRE(parse("GET", "/api/v1/namespaces").verb == "list");
  REQUIRE(parse("DELETE", "/api/v1/namespaces/a/configmaps").verb == "deletecollection");
  REQUIRE(parse("DELETE", "/api/v1/namespaces/a/configmaps/x").verb == "delete");
  REQUIRE(parse("POST", "/api/v1/namespaces/a/configmaps").verb == "create");
  REQUIRE(parse("PATCH", "/api/v1/nodes/n1").verb == "patch");
  REQUIRE(parse("GET", "/api/v1/watch/namespaces/a/pods").verb == "watch");
  REQUIRE_FALSE(parse("GET", "/apis/apps").is_resource_request);
  REQUIRE_FALSE(parse("GET", "/api/v1").is_resource_request);
}

}  // namespace
}  // namespace k3c::apiserver

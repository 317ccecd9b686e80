// The node proxy's pieces: the {id} forms upstream accepts, the kubelet path taken from the
// request (cleaned, trailing slash kept, the `path` option), the redirect of a bare
// `.../proxy`, and the request the kubelet gets.
#include "roles/apiserver/node_proxy.h"

#include <catch2/catch.hpp>

#include "request_to.h"

namespace k3c::apiserver {
namespace {

http::Request at(std::string target) { return testing::request_to("GET", std::move(target)); }

TEST_CASE("a node proxy id is name, name:port or scheme:name:port, as upstream") {
  auto split = [](std::string_view id) {
    auto got = split_scheme_name_port(id);
    REQUIRE(got);
    return std::vector<std::string>{got->scheme, got->name, got->port};
  };
  using V = std::vector<std::string>;
  CHECK(split("n1") == V{"", "n1", ""});
  CHECK(split("n1:10250") == V{"", "n1", "10250"});
  CHECK(split("n1:") == V{"", "n1", ""});
  CHECK(split("https:n1:10250") == V{"https", "n1", "10250"});
  CHECK(split("http:n1:metrics") == V{"http", "n1", "metrics"});  // a named port
  CHECK(split(":n1:1") == V{"", "n1", "1"});
  for (std::string_view bad : {"", ":10250", "ftp:n1:1", "https::1", "a:b:c:d", "HTTPS:n1:1"}) {
    INFO(bad);
    CHECK_FALSE(split_scheme_name_port(bad).has_value());
  }
}

TEST_CASE("the kubelet path is what follows /proxy, cleaned, its trailing slash kept") {
  auto path = [](std::string target, std::string_view id = "n1") {
    return node_proxy_path(at(std::move(target)), id);
  };
  CHECK(path("/api/v1/nodes/n1/proxy/stats/summary") == "/stats/summary");
  CHECK(path("/api/v1/nodes/n1/proxy/containerLogs/default/web/app?follow=true") ==
        "/containerLogs/default/web/app");
  CHECK(path("/api/v1/nodes/n1/proxy/pods/") == "/pods/");
  CHECK(path("/api/v1/nodes/n1/proxy/") == "/");
  CHECK(path("/api/v1/nodes/n1/proxy") == "");
  // Nothing above the kubelet's root; repeated slashes and "." go.
  CHECK(path("/api/v1/nodes/n1/proxy/a/../../../etc//x/./y") == "/etc/x/y");
  CHECK(path("/api/v1/nodes/n1/proxy/%2e%2e/healthz") == "/healthz");
  // A bare .../proxy takes its path from the options (NodeProxyOptions.path).
  CHECK(path("/api/v1/nodes/n1/proxy?path=/healthz") == "/healthz");
  CHECK(path("/api/v1/nodes/n1/proxy?path=metrics/resource/") == "/metrics/resource/");
  CHECK(path("/api/v1/nodes/n1/proxy/healthz?path=/pods") == "/healthz");
  // The id as the request wrote it, and names that look like the path's own segments.
  CHECK(path("/api/v1/nodes/n1:10250/proxy/healthz", "n1:10250") == "/healthz");
  CHECK(path("/api/v1/nodes/proxy/proxy/x", "proxy") == "/x");
  CHECK(path("/api/v1/nodes/nodes/proxy/nodes/nodes/proxy/z", "nodes") == "/nodes/nodes/proxy/z");
}

TEST_CASE("a GET of a bare .../proxy is redirected to .../proxy/, query kept") {
  http::Response r = node_proxy_redirect(at("/api/v1/nodes/n1/proxy?a=1&b=%20"));
  CHECK(r.status == 301);
  using Headers = std::vector<std::pair<std::string, std::string>>;
  CHECK(r.headers == Headers{{"Location", "/api/v1/nodes/n1/proxy/?a=1&b=%20"}});
  CHECK(node_proxy_redirect(at("/api/v1/nodes/n1/proxy")).headers ==
        Headers{{"Location", "/api/v1/nodes/n1/proxy/"}});
}

TEST_CASE("the kubelet gets the method, path, query and body, not the client's credentials") {
  http::Request in = at("/api/v1/nodes/n1/proxy/exec/default/web/app?command=ls&output=1");
  in.method = "POST";
  in.body = "body";
  in.remote_address = "10.0.0.9";
  in.headers = {{"host", "127.0.0.1:6443"},      {"authorization", "Bearer secret"},
                {"impersonate-user", "someone"}, {"content-type", "text/plain"},
                {"content-length", "4"},         {"upgrade", "SPDY/3.1"},
                {"connection", "Upgrade"}};
  http::Request out = node_proxy_request(in, "/exec/default/web/app");
  CHECK(out.method == "POST");
  CHECK(out.path == "/exec/default/web/app");
  CHECK(out.target == "/exec/default/web/app?command=ls&output=1");
  CHECK(out.query == in.query);
  CHECK(out.body == "body");
  CHECK(out.remote_address == "10.0.0.9");
  using Headers = std::vector<std::pair<std::string, std::string>>;
  CHECK(out.headers == Headers{{"content-type", "text/plain"},
                               {"upgrade", "SPDY/3.1"},
                               {"connection", "Upgrade"}});
  // No path at all (a POST to .../proxy): the kubelet's root, as Go sends an empty path.
  CHECK(node_proxy_request(in, "").path == "/");
}

}  // namespace
}  // namespace k3c::apiserver

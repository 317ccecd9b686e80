// Replays the requests real kubectl sent (testdata/kubectl_requests.txt, embedded at build
// time) against the registry: every resource path must name a resource or subresource the
// registry serves, with a matching scope, and the HTTP method must map to one of its verbs.
#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/discovery.h"
#include "api/registry.h"

extern const std::string_view k3c_embedded_kubectl_requests;

namespace k3c::api {
namespace {

struct Request {
  std::string method;
  std::string path;  // without the query
  bool watch = false;
};

std::vector<Request> captured_requests() {
  std::vector<Request> out;
  std::string_view text = k3c_embedded_kubectl_requests;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    const std::string_view target = line.substr(space + 1);
    const std::string_view query = target.substr(std::min(target.find('?'), target.size()));
    out.push_back({std::string(line.substr(0, space)),
                   std::string(target.substr(0, target.find('?'))),
                   query.find("watch=true") != std::string_view::npos});
  }
  return out;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  while (!path.empty()) {
    path.remove_prefix(1);  // the '/'
    const size_t next = path.find('/');
    parts.emplace_back(path.substr(0, next));
    path.remove_prefix(next == std::string_view::npos ? path.size() : next);
  }
  return parts;
}

// The verb a request is authorized as, as the apiserver's RequestInfo derives it.
std::string verb_of(const Request& req, bool named) {
  if (req.method == "GET") return named ? "get" : (req.watch ? "watch" : "list");
  if (req.method == "POST") return "create";
  if (req.method == "PUT") return "update";
  if (req.method == "PATCH") return "patch";
  if (req.method == "DELETE") return named ? "delete" : "deletecollection";
  return "?";
}

TEST_CASE("every resource kubectl requested is served with that verb") {
  const auto registry = ResourceRegistry::builtin();
  REQUIRE(registry.is_ok());
  int checked = 0;
  for (const Request& req : captured_requests()) {
    INFO(req.method << " " << req.path);
    std::vector<std::string> parts = split_path(req.path);
    std::string group, version;
    size_t at = 0;
    if (parts.size() >= 2 && parts[0] == "api") {
      version = parts[1];
      at = 2;
    } else if (parts.size() >= 3 && parts[0] == "apis") {
      group = parts[1];
      version = parts[2];
      at = 3;
    } else {
      continue;  // /api, /apis, /version, /openapi/...: not resources
    }
    // metrics.k8s.io belongs to metrics-server; without it `kubectl top` says so.
    if (group == "metrics.k8s.io") {
      CHECK_FALSE(legacy_resource_list(*registry, group, version).has_value());
      continue;
    }
    if (at == parts.size()) {  // legacy discovery of one group-version
      CHECK(legacy_resource_list(*registry, group, version).has_value());
      continue;
    }
    bool in_namespace = false;
    if (parts.size() >= at + 3 && parts[at] == "namespaces") {
      in_namespace = true;
      at += 2;
    }
    const std::string& plural = parts[at];
    const bool named = parts.size() > at + 1;
    const Resource* r = registry->find(group, version, plural);
    REQUIRE(r != nullptr);
    CHECK((!in_namespace || r->namespaced));
    if (parts.size() > at + 2) {
      const Subresource* sub = r->subresource(parts[at + 2]);
      REQUIRE(sub != nullptr);
      CHECK(sub->verbs.count(verb_of(req, true)) == 1);
    } else {
      CHECK(r->has_verb(verb_of(req, named)));
    }
    ++checked;
  }
  CHECK(checked > 50);  // the file was read and parsed
}

}  // namespace
}  // namespace k3c::api

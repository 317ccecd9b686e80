// An http::Request for `method` and `target` ("/api/v1/pods?watch=true"), as the server
// hands it to handlers: path decoded, query split. For unit tests of request handling.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "http/http.h"

namespace k3c::testing {

inline http::Request request_to(std::string method, std::string target) {
  http::Request r;
  r.method = std::move(method);
  r.target = target;
  auto parsed = http::parse_target(target);
  REQUIRE(parsed);
  r.path = parsed->path;
  r.query = parsed->query;
  return r;
}

}  // namespace k3c::testing

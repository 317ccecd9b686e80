// WWW-Authenticate challenges (RFC 7235) as registries send them:
//   Bearer
//   realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull"
//   Basic realm="Registry Realm"
// and the token endpoint's answer ({"token": ...} or {"access_token": ...}).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::registry {

struct Challenge {
  std::string scheme;                         // lower-cased: "bearer", "basic"
  std::map<std::string, std::string> params;  // names lower-cased, values unquoted
};

// Every challenge in the header value, in order; malformed parts end the parse (what was
// read before them is kept), so a garbage header yields no challenge rather than an error.
std::vector<Challenge> parse_challenges(std::string_view header);

// The token from a token endpoint's JSON answer; kInvalid when there is none.
Result<std::string> parse_token_response(std::string_view body);

}  // namespace k3c::runtime::registry

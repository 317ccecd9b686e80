// Small helpers the protocol handshakes share: case-insensitive header matching and the
// plain-text answers upstream's kubelet gives before a protocol switch.
#pragma once

#include <strings.h>

#include <string>
#include <string_view>

#include "http/http.h"

namespace k3c::streaming::internal {

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

inline http::Response plain_text(int status, const std::string& body) {
  http::Response r;
  r.status = status;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.body = body + "\n";
  return r;
}

}  // namespace k3c::streaming::internal

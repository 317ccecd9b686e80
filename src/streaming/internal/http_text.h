// Small helpers the protocol handshakes share: case-insensitive header matching and the
// plain-text answers upstream's kubelet gives before a protocol switch.
#pragma once

#include <strings.h>

#include <string>
#include <string_view>

#include "http/text_response.h"

namespace k3c::streaming::internal {

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// One line of text (the newline added), as upstream's kubelet answers before a switch.
inline http::Response plain_text(int status, const std::string& line) {
  return http::text_response(status, line + "\n");
}

}  // namespace k3c::streaming::internal

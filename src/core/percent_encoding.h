// Percent-encoding (RFC 3986) of URL paths and query or form values, as the API server's
// kubelet client and the registry client's token requests need it.
#pragma once

#include <string>
#include <string_view>

namespace k3c {

// Escapes every byte but the unreserved ones (letters, digits, -._~) as %XX; '/' too unless
// `keep_slash` (a path).
std::string percent_encode(std::string_view in, bool keep_slash);

}  // namespace k3c

// Standard base64 (RFC 4648, with padding), as Kubernetes uses it for Secret data and
// continue tokens.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace k3c {

std::string base64_encode(std::string_view bytes);
// nullopt when the text is not valid base64 (whitespace is not skipped).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace k3c

// Hex, SHA-256 and random bytes for the PKI (base64 is core/base64.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::pki::internal {

std::string to_hex(std::string_view bytes);          // lower case
Result<std::string> sha256(std::string_view bytes);  // the 32-byte digest
Result<std::string> random_bytes(size_t n);          // from OpenSSL's CSPRNG

}  // namespace k3c::pki::internal

// Byte encodings and digests the PKI needs: hex, base64, SHA-256 and random bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::pki::internal {

std::string to_hex(std::string_view bytes);  // lower case
std::string base64(std::string_view bytes);  // standard alphabet, padded, one line
Result<std::string> base64_decode(std::string_view text);
Result<std::string> sha256(std::string_view bytes);  // the 32-byte digest
Result<std::string> random_bytes(size_t n);          // from OpenSSL's CSPRNG

}  // namespace k3c::pki::internal

// Hex, SHA-256 and random bytes through OpenSSL's EVP and RAND APIs.
#include "pki/internal/encoding.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <climits>

#include "pki/internal/ossl.h"

namespace k3c::pki::internal {

std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 0xf];
  }
  return out;
}

Result<std::string> sha256(std::string_view bytes) {
  std::string digest(EVP_MAX_MD_SIZE, '\0');
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), reinterpret_cast<unsigned char*>(digest.data()), &len,
                 EVP_sha256(), nullptr) != 1) {
    return openssl_error(Code::kInternal, "SHA-256");
  }
  digest.resize(len);
  return digest;
}

Result<std::string> random_bytes(size_t n) {
  std::string out(n, '\0');
  if (n > INT_MAX ||
      RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return openssl_error(Code::kInternal, "RAND_bytes");
  }
  return out;
}

}  // namespace k3c::pki::internal

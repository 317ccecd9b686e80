// The pieces of the agent join protocol that both ends share (see pki.h and doc/pki.md):
// the CA pin check, HTTP Basic credentials from the token, and the cert+key answer format.
#include <openssl/crypto.h>

#include "core/base64.h"
#include "pki/internal/cert_inspect.h"
#include "pki/internal/encoding.h"
#include "pki/internal/files.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

constexpr std::string_view kBasic = "Basic ";
constexpr std::string_view kKeyMarker = "-----BEGIN ";
constexpr std::string_view kCertMarker = "-----BEGIN CERTIFICATE-----";

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

Status verify_ca_hash(const ParsedToken& token, std::string_view ca_pem) {
  if (token.ca_hash.empty()) return Status::ok();
  ASSIGN_OR_RETURN(std::string actual, ca_hash(ca_pem));
  if (actual == token.ca_hash) return Status::ok();
  return error(Code::kForbidden, "the server's CA certificate does not match the token: its hash " +
                                     actual + " is not the token's " + token.ca_hash);
}

std::string basic_authorization(const ParsedToken& token) {
  const std::string user = token.username.empty() ? "node" : token.username;
  return std::string(kBasic) + base64_encode(user + ":" + token.password);
}

Status check_basic_authorization(std::string_view authorization, const ParsedToken& server_token) {
  const Status refused =
      error(Code::kUnauthorized, "Unauthorized: a valid cluster token is needed");
  if (!authorization.starts_with(kBasic)) return refused;
  std::optional<std::string> decoded = base64_decode(authorization.substr(kBasic.size()));
  if (!decoded) return refused;
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) return refused;
  if (!same_secret(std::string_view(*decoded).substr(colon + 1), server_token.password))
    return refused;
  return Status::ok();
}

Result<CertKey> split_cert_and_key(std::string_view pem) {
  // The certificates come first; the key is the first block that is not a certificate.
  size_t at = 0;
  while ((at = pem.find(kKeyMarker, at)) != std::string_view::npos &&
         pem.substr(at).starts_with(kCertMarker))
    at += kCertMarker.size();
  if (at == std::string_view::npos || pem.find(kCertMarker) == std::string_view::npos)
    return error(Code::kInvalid, "expected a PEM certificate followed by its private key");
  CertKey pair;
  pair.cert_pem = std::string(pem.substr(0, at));
  pair.key_pem = std::string(pem.substr(at));
  ASSIGN_OR_RETURN(internal::X509Ptr cert, internal::parse_cert_pem(pair.cert_pem, "certificate"));
  ASSIGN_OR_RETURN(internal::EvpPkeyPtr key, internal::parse_key_pem(pair.key_pem, "private key"));
  if (!internal::key_matches(cert.get(), key.get()))
    return error(Code::kInvalid, "the private key does not belong to the certificate");
  return pair;
}

Result<std::string> sha256_hex(std::string_view bytes) {
  ASSIGN_OR_RETURN(std::string digest, internal::sha256(bytes));
  return internal::to_hex(digest);
}

Result<std::string> random_hex(size_t bytes) {
  ASSIGN_OR_RETURN(std::string random, internal::random_bytes(bytes));
  return internal::to_hex(random);
}

Status write_pem_file(const std::string& path, std::string_view pem, unsigned mode) {
  RETURN_IF_ERROR(internal::make_dirs(internal::parent_dir(path), 0700));
  return internal::write_file_atomic(path, pem, mode);
}

}  // namespace k3c::pki

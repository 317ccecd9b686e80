// Making keys and certificates: ECDSA P-256 keys, SHA-256 signatures, random 128-bit
// serials; self-signed CAs valid 10 years and leaves valid 1 year (extensions: doc/pki.md).
#pragma once

#include <chrono>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "pki/internal/cert_inspect.h"
#include "pki/internal/ossl.h"
#include "pki/internal/san.h"

namespace k3c::pki::internal {

inline constexpr std::chrono::seconds kCaValidity = std::chrono::days(3650);
inline constexpr std::chrono::seconds kLeafValidity = std::chrono::days(365);

enum class CertKind { kServing, kClient };

struct LeafRequest {
  CertKind kind = CertKind::kClient;
  Subject subject;
  std::vector<San> sans;  // kServing only
};

// The CA that signs a leaf. Not owned.
struct Signer {
  X509* cert;
  EVP_PKEY* key;
};

Result<EvpPkeyPtr> generate_key();

// The pieces every certificate (and request) this module makes is built from:
// `subject`'s O entries then its CN (left out when empty) added to `name`; a random
// positive 128-bit serial; one extension from OpenSSL's config syntax ("critical,CA:FALSE");
// a SHA-256 signature.
Status add_subject(X509_NAME* name, const Subject& subject);
Status set_random_serial(X509* cert);
Status add_ext(X509* cert, X509V3_CTX* ctx, int nid, const char* value);
Status sign(X509* cert, EVP_PKEY* key);

// A CA certificate and its key from PEM; kCorrupt naming `name` ("client CA") when either
// does not parse, kInvalid when they do not belong together.
struct LoadedCa {
  X509Ptr cert;
  EvpPkeyPtr key;
  Signer signer() const { return {cert.get(), key.get()}; }
};
Result<LoadedCa> load_ca(std::string_view cert_pem, std::string_view key_pem,
                         const std::string& name);

// A self-signed CA certificate for `key`, valid from `now` for kCaValidity.
Result<X509Ptr> make_ca_cert(const Subject& subject, EVP_PKEY* key, std::time_t now);

// A leaf for `key` signed by `ca`, valid from the CA's own notBefore (as Kubernetes does, so
// a peer whose clock lags a little still accepts it) until now + kLeafValidity.
Result<X509Ptr> make_leaf_cert(const LeafRequest& request, EVP_PKEY* key, const Signer& ca,
                               std::time_t now);

}  // namespace k3c::pki::internal

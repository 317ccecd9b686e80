// Making keys and certificates: ECDSA P-256 keys, SHA-256 signatures, random 128-bit
// serials; self-signed CAs valid 10 years and leaves valid 1 year (extensions: doc/pki.md).
#pragma once

#include <chrono>
#include <ctime>
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

// A self-signed CA certificate for `key`, valid from `now` for kCaValidity.
Result<X509Ptr> make_ca_cert(const Subject& subject, EVP_PKEY* key, std::time_t now);

// A leaf for `key` signed by `ca`, valid from the CA's own notBefore (as Kubernetes does, so
// a peer whose clock lags a little still accepts it) until now + kLeafValidity.
Result<X509Ptr> make_leaf_cert(const LeafRequest& request, EVP_PKEY* key, const Signer& ca,
                               std::time_t now);

}  // namespace k3c::pki::internal

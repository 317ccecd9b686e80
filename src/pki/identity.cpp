// Kubernetes identities from client certificates: user = subject CN, groups = subject O.
#include <openssl/ssl.h>

#include "pki/internal/cert_inspect.h"
#include "pki/pki.h"

namespace k3c::pki {

Result<Identity> identity_from_certificate(const X509* cert) {
  if (cert == nullptr) return error(Code::kUnauthorized, "no client certificate");
  internal::Subject subject = internal::subject_of(cert);
  if (subject.common_name.empty()) {
    return error(Code::kUnauthorized, "client certificate has no common name");
  }
  return Identity{std::move(subject.common_name), std::move(subject.organizations)};
}

Result<std::optional<Identity>> peer_identity(const SSL* ssl) {
  const X509* cert = SSL_get0_peer_certificate(ssl);
  if (cert == nullptr) return std::optional<Identity>();
  // The server context fails the handshake on a bad certificate; this guards callers whose
  // context has a verify callback that lets one through.
  long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK) {
    return error(Code::kUnauthorized, std::string("client certificate did not verify: ") +
                                          X509_verify_cert_error_string(verify));
  }
  ASSIGN_OR_RETURN(Identity identity, identity_from_certificate(cert));
  return std::optional<Identity>(std::move(identity));
}

}  // namespace k3c::pki

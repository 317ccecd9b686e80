// issue_client_cert: further client certificates (nodes, controllers) from the client CA.
#include <chrono>

#include "pki/internal/cert_issue.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"

namespace k3c::pki {

Result<CertKey> issue_client_cert(const CertKey& client_ca, const ClientCertSpec& spec,
                                  const Clock* clock) {
  if (spec.common_name.empty()) {
    return error(Code::kInvalid, "a client certificate needs a common name (the user name)");
  }
  ASSIGN_OR_RETURN(internal::X509Ptr ca_cert,
                   internal::parse_cert_pem(client_ca.cert_pem, "client CA certificate"));
  ASSIGN_OR_RETURN(internal::EvpPkeyPtr ca_key,
                   internal::parse_key_pem(client_ca.key_pem, "client CA key"));
  if (!internal::key_matches(ca_cert.get(), ca_key.get())) {
    return error(Code::kInvalid, "client CA certificate and key do not match");
  }
  const Clock& c = clock ? *clock : SystemClock::instance();
  std::time_t now = std::chrono::system_clock::to_time_t(c.wall_now());

  ASSIGN_OR_RETURN(internal::EvpPkeyPtr key, internal::generate_key());
  internal::LeafRequest request{
      internal::CertKind::kClient, {spec.common_name, spec.organizations}, {}};
  ASSIGN_OR_RETURN(internal::X509Ptr cert,
                   internal::make_leaf_cert(request, key.get(),
                                            internal::Signer{ca_cert.get(), ca_key.get()}, now));
  CertKey out;
  ASSIGN_OR_RETURN(out.cert_pem, internal::cert_to_pem(cert.get()));
  ASSIGN_OR_RETURN(out.key_pem, internal::key_to_pem(key.get()));
  return out;
}

}  // namespace k3c::pki

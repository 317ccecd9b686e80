// issue_client_cert and issue_serving_cert: further leaf certificates (nodes, controllers,
// the kubelet's serving certificate) from a CA held in memory.
#include <chrono>

#include "pki/internal/cert_issue.h"
#include "pki/internal/pem.h"
#include "pki/internal/san.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

// A new key and a one-year certificate for `request`, signed by `ca`.
Result<CertKey> issue_leaf(const CertKey& ca, const char* ca_name, internal::LeafRequest request,
                           const Clock* clock) {
  ASSIGN_OR_RETURN(internal::LoadedCa signing, internal::load_ca(ca.cert_pem, ca.key_pem, ca_name));
  const Clock& c = clock ? *clock : SystemClock::instance();
  std::time_t now = std::chrono::system_clock::to_time_t(c.wall_now());
  ASSIGN_OR_RETURN(internal::EvpPkeyPtr key, internal::generate_key());
  ASSIGN_OR_RETURN(internal::X509Ptr cert,
                   internal::make_leaf_cert(request, key.get(), signing.signer(), now));
  CertKey out;
  ASSIGN_OR_RETURN(out.cert_pem, internal::cert_to_pem(cert.get()));
  ASSIGN_OR_RETURN(out.key_pem, internal::key_to_pem(key.get()));
  return out;
}

}  // namespace

Result<CertKey> issue_client_cert(const CertKey& client_ca, const ClientCertSpec& spec,
                                  const Clock* clock) {
  if (spec.common_name.empty()) {
    return error(Code::kInvalid, "a client certificate needs a common name (the user name)");
  }
  return issue_leaf(client_ca, "client CA",
                    {internal::CertKind::kClient, {spec.common_name, spec.organizations}, {}},
                    clock);
}

Result<CertKey> issue_serving_cert(const CertKey& server_ca, const std::string& common_name,
                                   const std::vector<std::string>& sans, const Clock* clock) {
  if (common_name.empty() || sans.empty()) {
    return error(Code::kInvalid, "a serving certificate needs a common name and names (SANs)");
  }
  ASSIGN_OR_RETURN(std::vector<internal::San> parsed, internal::parse_sans(sans));
  return issue_leaf(server_ca, "server CA",
                    {internal::CertKind::kServing, {common_name, {}}, std::move(parsed)}, clock);
}

}  // namespace k3c::pki

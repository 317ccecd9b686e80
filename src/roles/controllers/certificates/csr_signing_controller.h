// CSR signing (upstream's csrsigning controllers): an approved CertificateSigningRequest for
// one of the built-in signers gets its certificate, signed with the cluster's CAs as k3s
// configures kube-controller-manager:
//   kubernetes.io/kube-apiserver-client and kubernetes.io/kube-apiserver-client-kubelet: the
//   client CA (what the API server trusts), kubernetes.io/kubelet-serving: the server CA.
// A request the signer's rules refuse (usages, a kubelet's subject and names) gets a Failed
// condition (reason SignerValidationFailure) instead. Denied, failed and issued requests and
// other signers' are left alone. The CA files are read at each signing, so a rotated CA is
// used at once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pki/pki.h"
#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class CsrSigningController final : public Controller {
 public:
  // `tls_dir` holds client-ca.{crt,key} and server-ca.{crt,key}; `duration` is the longest
  // lifetime given (cluster-signing-duration; a request's expirationSeconds may ask less).
  CsrSigningController(ControllerContext& ctx, std::string tls_dir, std::chrono::seconds duration);
  Status reconcile(const std::string& key) override;

  // Why the signer named `signer` refuses a request asking for `request` with `usages`, in
  // upstream's words; nullopt when it accepts it.
  static std::optional<std::string> refusal(const std::string& signer,
                                            const pki::CertificateRequestInfo& request,
                                            const std::vector<std::string>& usages);
  // The lifetime to give: `duration`, or the request's expirationSeconds when shorter (but
  // at least 10 minutes).
  static std::chrono::seconds lifetime(const json& csr, std::chrono::seconds duration);

 private:
  ControllerContext& ctx_;
  client::Informer& csrs_;
  const std::string tls_dir_;
  const std::chrono::seconds duration_;
};

}  // namespace k3c::controllers

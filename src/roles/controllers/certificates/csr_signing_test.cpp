// The CSR signer's rules per signer name and the lifetime it gives.
#include <catch2/catch.hpp>

#include "roles/controllers/certificates/csr_signing_controller.h"

namespace k3c::controllers {
namespace {

using Info = pki::CertificateRequestInfo;

TEST_CASE("the CSR signers' rules, in upstream's words") {
  const std::string client = "kubernetes.io/kube-apiserver-client";
  Info jane{"jane", {"dev"}};
  CHECK_FALSE(CsrSigningController::refusal(client, jane, {"client auth", "digital signature"}));
  CHECK(CsrSigningController::refusal(client, jane, {"server auth"}) ==
        "invalid usage for client certificate: server auth");
  CHECK(CsrSigningController::refusal(client, jane, {"digital signature"}) ==
        "missing required usage for client certificate: client auth");

  const std::string kubelet = "kubernetes.io/kube-apiserver-client-kubelet";
  Info node{"system:node:n1", {"system:nodes"}};
  CHECK_FALSE(CsrSigningController::refusal(kubelet, node, {"digital signature", "client auth"}));
  CHECK(CsrSigningController::refusal(kubelet, jane, {"digital signature", "client auth"}) ==
        "subject organization is not system:nodes");
  CHECK(CsrSigningController::refusal(kubelet, node, {"client auth"}) ==
        "usages did not match [client auth digital signature key encipherment]");
  Info named_node = node;
  named_node.dns_names = 1;
  CHECK(CsrSigningController::refusal(kubelet, named_node, {"digital signature", "client auth"}) ==
        "DNS subjectAltNames are not allowed");

  const std::string serving = "kubernetes.io/kubelet-serving";
  CHECK(CsrSigningController::refusal(serving, node, {"digital signature", "server auth"}) ==
        "DNS or IP subjectAltName is required");
  CHECK_FALSE(
      CsrSigningController::refusal(serving, named_node, {"digital signature", "server auth"}));
  Info not_a_node = named_node;
  not_a_node.common_name = "web";
  CHECK(CsrSigningController::refusal(serving, not_a_node, {"digital signature", "server auth"}) ==
        "subject common name does not begin with system:node:");
}

TEST_CASE("the lifetime a CSR gets") {
  using std::chrono::seconds;
  const seconds year(365 * 24 * 3600);
  nlohmann::json csr = {{"spec", nlohmann::json::object()}};
  CHECK(CsrSigningController::lifetime(csr, year) == year);
  csr["spec"]["expirationSeconds"] = 3600;
  CHECK(CsrSigningController::lifetime(csr, year) == seconds(3600));
  csr["spec"]["expirationSeconds"] = 2 * year.count();
  CHECK(CsrSigningController::lifetime(csr, year) == year);
  csr["spec"]["expirationSeconds"] = 60;  // older objects: never under ten minutes
  CHECK(CsrSigningController::lifetime(csr, year) == seconds(600));
}

}  // namespace
}  // namespace k3c::controllers

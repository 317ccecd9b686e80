// CertificateSigningRequests end to end with the real kubectl (1.27 and 1.33) against a real
// `k3c server`: a user's request is created (the requester recorded, whatever the body
// says), approved with `kubectl certificate approve`, signed by the controller manager with
// the cluster's client CA, and the certificate then authenticates its holder; a request the
// signer refuses is marked Failed; a denied one stays denied; a bad one is refused in
// upstream's words.
#include <catch2/catch.hpp>

#include "core/base64.h"
#include "kubectl_runner.h"
#include "pki/pki.h"

namespace k3c {
namespace {

std::string csr_yaml(const std::string& name, const std::string& request_pem,
                     const std::string& usages) {
  return "apiVersion: certificates.k8s.io/v1\n"
         "kind: CertificateSigningRequest\n"
         "metadata: {name: " +
         name +
         "}\n"
         "spec:\n"
         "  request: " +
         base64_encode(request_pem) +
         "\n"
         "  signerName: kubernetes.io/kube-apiserver-client\n"
         "  expirationSeconds: 3600\n"
         "  usages: " +
         usages +
         "\n"
         "  username: mallory\n";
}

TEST_CASE("certificate signing requests through kubectl") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox s(version);
  auto jane = pki::new_certificate_request({"jane", {"dev"}});
  REQUIRE(jane.is_ok());

  SECTION("approved, issued, and the certificate authenticates its holder") {
    CHECK(s.ok({"create"}, s.file("jane.yaml", csr_yaml("jane", jane->csr_pem, "[client auth]"))) ==
          "certificatesigningrequest.certificates.k8s.io/jane created\n");
    std::string pending = s.ok({"get", "csr", "jane", "--no-headers"});
    CHECK(pending.find("kubernetes.io/kube-apiserver-client   system:admin") != std::string::npos);
    CHECK(pending.find("Pending") != std::string::npos);
    CHECK(s.ok({"certificate", "approve", "jane"}) ==
          "certificatesigningrequest.certificates.k8s.io/jane approved\n");
    std::string certificate;
    CHECK(eventually([&] {
      certificate = s.kubectl({"get", "csr", "jane", "-o", "jsonpath={.status.certificate}"}).out;
      return !certificate.empty();
    }));
    CHECK(s.ok({"get", "csr", "jane", "--no-headers"}).find("Approved,Issued") !=
          std::string::npos);
    auto pem = base64_decode(certificate);
    REQUIRE(pem);
    const std::string cert_file = s.file("jane.crt", *pem);
    const std::string key_file = s.file("jane.key", jane->key_pem);
    const std::string kubeconfig = s.file(
        "jane.kubeconfig",
        "apiVersion: v1\nkind: Config\n"
        "clusters: [{name: c, cluster: {server: \"https://127.0.0.1:" +
            std::to_string(s.box.port()) + "\", certificate-authority: " + s.box.data_dir() +
            "/server/tls/server-ca.crt}}]\n"
            "users: [{name: jane, user: {client-certificate: " +
            cert_file + ", client-key: " + key_file +
            "}}]\n"
            "contexts: [{name: c, context: {cluster: c, user: jane}}]\ncurrent-context: c\n");
    KubectlRunner as_jane{s.box, s.kubectl.binary, {{"KUBECONFIG", kubeconfig}}};
    auto denied = as_jane({"get", "pods"});
    CHECK(denied.exit_code == 1);
    CHECK(denied.err.find("Error from server (Forbidden): pods is forbidden: User \"jane\" cannot "
                          "list resource \"pods\"") != std::string::npos);
  }
  SECTION("a request the signer refuses is marked Failed") {
    s.ok({"create"}, s.file("srv.yaml", csr_yaml("srv", jane->csr_pem, "[server auth]")));
    s.ok({"certificate", "approve", "srv"});
    CHECK(eventually([&] {
      return s.kubectl({"get", "csr", "srv", "--no-headers"}).out.find("Approved,Failed") !=
             std::string::npos;
    }));
    CHECK(s.ok({"get", "csr", "srv", "-o",
                "jsonpath={.status.conditions[1].reason}: {.status.conditions[1].message}"}) ==
          "SignerValidationFailure: invalid usage for client certificate: server auth");
  }
  SECTION("a denied request stays denied") {
    s.ok({"create"}, s.file("down.yaml", csr_yaml("turned-down", jane->csr_pem, "[client auth]")));
    CHECK(s.ok({"certificate", "deny", "turned-down"}) ==
          "certificatesigningrequest.certificates.k8s.io/turned-down denied\n");
    auto again = s.kubectl({"certificate", "approve", "turned-down"});
    CHECK(again.exit_code != 0);
    CHECK(again.err == "error: certificate signing request \"turned-down\" is already Denied\n");
    CHECK(s.ok({"get", "csr", "turned-down", "-o", "jsonpath={.status.certificate}"}).empty());
  }
  SECTION("a bad request is refused in upstream's words") {
    auto bad = s.kubectl({"create"}, s.file("bad.yaml", csr_yaml("bad", "hello", "[]")));
    CHECK(bad.exit_code == 1);
    CHECK(bad.err ==
          "The CertificateSigningRequest \"bad\" is invalid: \n"
          "* spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type "
          "must be CERTIFICATE REQUEST\n"
          "* spec.usages: Required value\n");
  }
}

}  // namespace
}  // namespace k3c

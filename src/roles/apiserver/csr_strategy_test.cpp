// CertificateSigningRequest rules: the requester recorded on create, what each write path
// may change, and validation in upstream's words.
#include "roles/apiserver/csr_strategy.h"

#include <catch2/catch.hpp>

#include "core/base64.h"
#include "pki/pki.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

json new_csr(const std::string& signer = "kubernetes.io/kube-apiserver-client") {
  auto made = pki::new_certificate_request({"jane", {"dev"}});
  REQUIRE(made.is_ok());
  return {{"apiVersion", "certificates.k8s.io/v1"},
          {"kind", "CertificateSigningRequest"},
          {"metadata", {{"name", "c1"}}},
          {"spec",
           {{"request", base64_encode(made->csr_pem)},
            {"signerName", signer},
            {"usages", {"client auth"}}}}};
}

std::string messages(const std::optional<ApiError>& e) {
  if (!e) return "";
  std::string out;
  for (const auto& c : e->causes) out += c.field + ": " + c.message + "\n";
  return out;
}

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));

TEST_CASE("a CSR records who asked, whatever its body says, and starts without status") {
  json csr = new_csr();
  csr["spec"]["username"] = "mallory";
  csr["spec"]["groups"] = {"system:masters"};
  csr["status"] = {{"conditions", {{{"type", "Approved"}, {"status", "True"}}}}};
  http::PeerIdentity jane{"jane", {"dev", "system:authenticated"}, "u-1", {{"k", {"v"}}}};
  csr::prepare_create(csr, &jane);
  CHECK(csr["spec"]["username"] == "jane");
  CHECK(csr["spec"]["groups"] == json({"dev", "system:authenticated"}));
  CHECK(csr["spec"]["uid"] == "u-1");
  CHECK(csr["spec"]["extra"] == json({{"k", {"v"}}}));
  CHECK(csr["status"] == json::object());
  CHECK_FALSE(csr::validate_create(csr));
}

TEST_CASE("CSR validation in upstream's words") {
  json csr = new_csr();
  csr["spec"]["request"] = base64_encode("hello");
  csr["spec"]["usages"] = {"client auth", "bogus", "client auth"};
  csr["spec"]["signerName"] = "example/a";
  csr["spec"]["expirationSeconds"] = 60;
  auto e = csr::validate_create(csr);
  REQUIRE(e);
  CHECK(e->code == Code::kInvalid);
  CHECK(messages(e) ==
        "spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f}: PEM block type must "
        "be CERTIFICATE REQUEST\n"
        "spec.usages[1]: Unsupported value: \"bogus\": supported values: \"any\", \"cert sign\", "
        "\"client auth\", \"code signing\", \"content commitment\", \"crl sign\", \"data "
        "encipherment\", \"decipher only\", \"digital signature\", \"email protection\", "
        "\"encipher only\", \"ipsec end system\", \"ipsec tunnel\", \"ipsec user\", \"key "
        "agreement\", \"key encipherment\", \"microsoft sgc\", \"netscape sgc\", \"ocsp "
        "signing\", \"s/mime\", \"server auth\", \"signing\", \"timestamping\"\n"
        "spec.usages[2]: Duplicate value: \"client auth\"\n"
        "spec.signerName: Invalid value: \"example\": should be a domain with at least two "
        "segments separated by dots\n"
        "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 "
        "seconds (10 minutes)\n");

  json legacy = new_csr("kubernetes.io/legacy-unknown");
  legacy["spec"].erase("usages");
  CHECK(messages(csr::validate_create(legacy)) ==
        "spec.usages: Required value\n"
        "spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": the legacy signerName "
        "is not allowed via this API version\n");
  CHECK(messages(csr::validate_create(new_csr("no-slash"))) ==
        "spec.signerName: Invalid value: \"no-slash\": must be a fully qualified domain and path "
        "of the form 'example.com/signer-name'\n");
}

TEST_CASE("each CSR write path changes its own part") {
  json old = new_csr();
  http::PeerIdentity admin{"system:admin", {"system:masters"}};
  csr::prepare_create(old, &admin);
  const json approved = {{"type", "Approved"}, {"status", "True"}, {"reason", "R"}};

  SECTION("a status write without conditions stores none") {
    json updated = old;
    REQUIRE_FALSE(csr::prepare_update(updated, old, "status", kNow));
    CHECK(updated["status"] == json::object());
  }
  SECTION("the object itself: metadata only") {
    json updated = old;
    updated["spec"]["usages"] = {"server auth"};
    updated["metadata"]["labels"] = {{"a", "b"}};
    CHECK_FALSE(csr::prepare_update(updated, old, "", kNow));
    CHECK(updated["spec"] == old["spec"]);
    CHECK(updated["metadata"]["labels"]["a"] == "b");
  }
  SECTION("approval: conditions, stamped; never both Approved and Denied, never removed") {
    json updated = old;
    updated["status"]["conditions"] = {approved};
    updated["status"]["certificate"] = base64_encode("not through approval");
    REQUIRE_FALSE(csr::prepare_update(updated, old, "approval", kNow));
    CHECK_FALSE(updated["status"].contains("certificate"));
    const json& c = updated["status"]["conditions"][0];
    CHECK(c["lastUpdateTime"] == "2027-01-15T08:00:00Z");
    CHECK(c["lastTransitionTime"] == "2027-01-15T08:00:00Z");

    json both = updated;
    both["status"]["conditions"].push_back({{"type", "Denied"}, {"status", "True"}});
    CHECK(messages(csr::prepare_update(both, updated, "approval", kNow)) ==
          "status.conditions[1].type: Invalid value: \"Denied\": Approved and Denied conditions "
          "are mutually exclusive\n");
    json removed = updated;
    removed["status"]["conditions"] = json::array();
    CHECK(messages(csr::prepare_update(removed, updated, "approval", kNow)) ==
          "status.conditions: Forbidden: updates may not remove a condition of type "
          "\"Approved\"\n");
    json false_status = old;
    false_status["status"]["conditions"] = {{{"type", "Approved"}, {"status", "False"}}};
    CHECK(messages(csr::prepare_update(false_status, old, "approval", kNow)) ==
          "status.conditions[0].status: Unsupported value: \"False\": supported values: "
          "\"True\"\n");
  }
  SECTION("status: the certificate, once; approval stays the approval path's") {
    json adding = old;
    adding["status"]["conditions"] = {approved};
    CHECK(messages(csr::prepare_update(adding, old, "status", kNow)) ==
          "status.conditions: Forbidden: updates may not add a condition of type "
          "\"Approved\"\n");

    json approved_csr = old;
    approved_csr["status"]["conditions"] = {approved};
    REQUIRE_FALSE(csr::prepare_update(approved_csr, old, "approval", kNow));
    auto issued = pki::new_certificate_request({"x", {}});  // any PEM that is not a cert
    json bad = approved_csr;
    bad["status"]["certificate"] = base64_encode(issued->csr_pem);
    CHECK(messages(csr::prepare_update(bad, approved_csr, "status", kNow)) ==
          "status.certificate: Invalid value: \"<certificate data>\": only CERTIFICATE PEM "
          "blocks are allowed, found \"CERTIFICATE REQUEST\"\n");
    // A changed Approved condition through /status is put back as it was.
    json changed = approved_csr;
    changed["status"]["conditions"][0]["reason"] = "Other";
    REQUIRE_FALSE(csr::prepare_update(changed, approved_csr, "status", kNow));
    CHECK(changed["status"]["conditions"][0]["reason"] == "R");
    // Through /approval a certificate is put back as it was; any other path refuses it.
    json via_approval = approved_csr;
    via_approval["status"]["certificate"] = base64_encode("x");
    CHECK(messages(csr::prepare_update(via_approval, approved_csr, "approval", kNow)).empty());
    CHECK_FALSE(via_approval["status"].contains("certificate"));
    json via_object = approved_csr;
    via_object["status"]["certificate"] = base64_encode("x");
    CHECK(messages(csr::prepare_update(via_object, approved_csr, "", kNow)) ==
          "status.certificate: Invalid value: \"<certificate data>\": must contain at least one "
          "CERTIFICATE PEM block\n"
          "status.certificate: Forbidden: updates may not set certificate content\n");
  }
}

}  // namespace
}  // namespace k3c::apiserver

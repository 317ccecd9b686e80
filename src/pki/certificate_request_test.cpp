// Certificate requests: making one, the checks upstream's CSR validation quotes, what a
// request names, and signing it as upstream's CSR signer does.
#include <catch2/catch.hpp>
#include <chrono>
#include <set>

#include "core/clock.h"
#include "pki/internal/cert_inspect.h"
#include "pki/internal/pem.h"
#include "pki/internal/san.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

struct CsrTestClock final : Clock {
  std::chrono::system_clock::time_point wall;
  TimePoint now() const override { return TimePoint{}; }
  std::chrono::system_clock::time_point wall_now() const override { return wall; }
};

CertKey test_ca(const std::string& dir) {
  PkiOptions options;
  options.tls_dir = dir;
  options.hostname = "test-host";
  auto pki = ensure_server_pki(options);
  REQUIRE(pki.is_ok());
  return pki->client_ca;
}

TEST_CASE("certificate requests are made, checked and read") {
  auto made =
      new_certificate_request({"system:node:n1", {"system:nodes"}}, {"n1.local", "10.0.0.7"});
  REQUIRE(made.is_ok());
  CHECK(made->csr_pem.rfind("-----BEGIN CERTIFICATE REQUEST-----", 0) == 0);
  CHECK(check_certificate_request(made->csr_pem).is_ok());
  auto info = read_certificate_request(made->csr_pem);
  REQUIRE(info.is_ok());
  CHECK(info->common_name == "system:node:n1");
  CHECK(info->organizations == std::vector<std::string>{"system:nodes"});
  CHECK(info->dns_names == 1);
  CHECK(info->ip_addresses == 1);
  CHECK(info->email_addresses == 0);

  SECTION("not a request") {
    CHECK(check_certificate_request("hello").message() ==
          "PEM block type must be CERTIFICATE REQUEST");
    CHECK(
        check_certificate_request("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
            .message() == "PEM block type must be CERTIFICATE REQUEST");
    CHECK(check_certificate_request(
              "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n")
              .message() == "x509: malformed certificate request");
  }
  SECTION("a signature that does not verify") {
    // Flip a byte inside the base64 of the signature (the last line before the footer).
    std::string pem = made->csr_pem;
    size_t footer = pem.find("-----END");
    size_t at = pem.rfind('\n', footer - 2) + 5;
    pem[at] = pem[at] == 'A' ? 'B' : 'A';
    CHECK(check_certificate_request(pem).message() == "x509: ECDSA verification failure");
  }
  SECTION("certificate chains") {
    CHECK(check_certificate_chain("").is_ok());
    CHECK(check_certificate_chain("junk").message() ==
          "must contain at least one CERTIFICATE PEM block");
    CHECK(check_certificate_chain(made->csr_pem).message() ==
          "only CERTIFICATE PEM blocks are allowed, found \"CERTIFICATE REQUEST\"");
    CHECK(check_certificate_chain("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
              .message() == "x509: malformed certificate");
  }
}

TEST_CASE("a request is signed with its subject, names, usages and lifetime") {
  TempDir dir;
  const CertKey ca = test_ca(dir.path() + "/tls");
  auto made = new_certificate_request({"jane", {"dev", "ops"}}, {"jane.example"});
  REQUIRE(made.is_ok());
  CsrTestClock clock;
  clock.wall = std::chrono::system_clock::now();
  const auto now = std::chrono::system_clock::to_time_t(clock.wall);

  auto signed_pem = sign_certificate_request(
      ca, made->csr_pem, {{"client auth", "digital signature"}, std::chrono::hours(24), &clock});
  REQUIRE(signed_pem.is_ok());
  auto cert = internal::parse_cert_pem(*signed_pem, "signed");
  REQUIRE(cert.is_ok());
  auto ca_cert = internal::parse_cert_pem(ca.cert_pem, "ca");
  REQUIRE(ca_cert.is_ok());
  CHECK(internal::issued_by(cert->get(), ca_cert->get()));
  CHECK(internal::subject_of(cert->get()) == internal::Subject{"jane", {"dev", "ops"}});
  CHECK(internal::san_keys_of(cert->get()) == std::set<std::string>{"DNS:jane.example"});
  CHECK(X509_get_extended_key_usage(cert->get()) == XKU_SSL_CLIENT);
  CHECK((X509_get_key_usage(cert->get()) & KU_DIGITAL_SIGNATURE) != 0);
  CHECK((X509_get_key_usage(cert->get()) & KU_KEY_ENCIPHERMENT) == 0);
  CHECK(X509_check_ca(cert->get()) == 0);
  // Backdated 5 minutes at both ends for a day's certificate.
  CHECK(internal::expires_before(cert->get(), now + 24 * 3600 - 5 * 60 + 1));
  CHECK_FALSE(internal::expires_before(cert->get(), now + 24 * 3600 - 5 * 60 - 1));

  SECTION("a short-lived certificate keeps its whole lifetime") {
    auto short_pem = sign_certificate_request(ca, made->csr_pem,
                                              {{"client auth"}, std::chrono::minutes(10), &clock});
    REQUIRE(short_pem.is_ok());
    auto c = internal::parse_cert_pem(*short_pem, "short");
    REQUIRE(c.is_ok());
    CHECK_FALSE(internal::expires_before(c->get(), now + 600 - 1));
    CHECK(internal::expires_before(c->get(), now + 600 + 1));
  }
  SECTION("never past the CA's end") {
    auto long_pem = sign_certificate_request(
        ca, made->csr_pem, {{"client auth"}, std::chrono::hours(24 * 365 * 20), &clock});
    REQUIRE(long_pem.is_ok());
    auto c = internal::parse_cert_pem(*long_pem, "long");
    REQUIRE(c.is_ok());
    CHECK(ASN1_TIME_compare(X509_get0_notAfter(c->get()), X509_get0_notAfter(ca_cert->get())) == 0);
  }
  SECTION("bad input") {
    CHECK(sign_certificate_request(ca, made->csr_pem, {{"flying"}, std::chrono::hours(1), &clock})
              .status()
              .message() == "unrecognized usage: flying");
    CHECK(sign_certificate_request(ca, "junk", {{"client auth"}, std::chrono::hours(1), &clock})
              .status()
              .code() == Code::kInvalid);
    CertKey wrong = ca;
    wrong.key_pem = made->key_pem;
    CHECK(sign_certificate_request(wrong, made->csr_pem,
                                   {{"client auth"}, std::chrono::hours(1), &clock})
              .status()
              .message() == "signing CA certificate and key do not match");
  }
}

}  // namespace
}  // namespace k3c::pki

// RS256 tokens and the service-account key files: round trips, tampering, algorithm
// confusion ("none", HS256), keys created once and reused.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

std::string jwt_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

unsigned jwt_mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string part(const std::string& token, int i) {
  size_t a = 0;
  for (int k = 0; k < i; ++k) a = token.find('.', a) + 1;
  size_t b = token.find('.', a);
  return token.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

TEST_CASE("base64url has no padding and the URL-safe alphabet") {
  CHECK(base64url_encode("\xfb\xff") == "-_8");
  CHECK(*base64url_decode("-_8") == "\xfb\xff");
  CHECK_FALSE(base64url_decode("+/8=").has_value());
  CHECK_FALSE(base64url_decode("a").has_value());
}

TEST_CASE("service-account keys are made once, 0600, and reused") {
  TempDir tmp;
  auto keys = ensure_service_account_keys(tmp.path());
  REQUIRE(keys.is_ok());
  CHECK_THAT(keys->signing_key_pem, Catch::StartsWith("-----BEGIN RSA PRIVATE KEY-----"));
  CHECK(jwt_slurp(tmp.path() + "/service.current.key") == keys->signing_key_pem);
  CHECK(jwt_slurp(tmp.path() + "/service.key") == keys->signing_key_pem);
  CHECK(jwt_mode_of(tmp.path() + "/service.key") == 0600);
  CHECK(jwt_mode_of(tmp.path() + "/service.current.key") == 0600);
  auto again = ensure_service_account_keys(tmp.path());
  REQUIRE(again.is_ok());
  CHECK(again->signing_key_pem == keys->signing_key_pem);
  CHECK(again->verify_key_pems == keys->verify_key_pems);

  SECTION("a k3s-style service.key alone becomes the current key") {
    std::remove((tmp.path() + "/service.current.key").c_str());
    auto promoted = ensure_service_account_keys(tmp.path());
    REQUIRE(promoted.is_ok());
    CHECK(promoted->signing_key_pem == keys->signing_key_pem);
    CHECK(promoted->verify_key_pems.size() == 1);
  }
  SECTION("a garbled key file stops the start with its name") {
    std::ofstream(tmp.path() + "/service.current.key") << "junk";
    auto bad = ensure_service_account_keys(tmp.path());
    REQUIRE_FALSE(bad.is_ok());
    CHECK_THAT(bad.status().message(), Catch::Contains("service.current.key"));
  }
}

TEST_CASE("RS256 tokens verify with the key that signed them and no other") {
  TempDir a, b;
  auto keys = ensure_service_account_keys(a.path());
  auto other = ensure_service_account_keys(b.path());
  REQUIRE(keys.is_ok());
  REQUIRE(other.is_ok());
  auto signer = JwtSigner::from_pem(keys->signing_key_pem);
  REQUIRE(signer.is_ok());
  auto verifier = JwtVerifier::from_pems(keys->verify_key_pems);
  REQUIRE(verifier.is_ok());
  const std::string claims = R"({"sub":"system:serviceaccount:default:bot","exp":2000000000})";
  auto token = signer->sign(claims);
  REQUIRE(token.is_ok());

  auto header = nlohmann::json::parse(*base64url_decode(part(*token, 0)));
  CHECK(header["alg"] == "RS256");
  CHECK(header["kid"] == signer->key_id());
  CHECK(signer->key_id().size() == 43);  // base64url of 32 bytes
  CHECK(*verifier->verify(*token) == claims);

  SECTION("another key's verifier refuses it") {
    auto wrong = JwtVerifier::from_pems(other->verify_key_pems);
    REQUIRE(wrong.is_ok());
    auto r = wrong->verify(*token);
    REQUIRE_FALSE(r.is_ok());
    CHECK(r.status().code() == Code::kUnauthorized);
  }
  SECTION("a changed payload breaks the signature") {
    std::string forged = part(*token, 0) + "." +
                         base64url_encode(R"({"sub":"system:serviceaccount:default:admin"})") +
                         "." + part(*token, 2);
    auto r = verifier->verify(forged);
    REQUIRE_FALSE(r.is_ok());
    CHECK_THAT(r.status().message(), Catch::Contains("signature"));
  }
  SECTION("a flipped signature bit fails") {
    std::string sig = *base64url_decode(part(*token, 2));
    sig[10] ^= 1;
    auto r =
        verifier->verify(part(*token, 0) + "." + part(*token, 1) + "." + base64url_encode(sig));
    CHECK_FALSE(r.is_ok());
  }
  SECTION("alg none and HS256 are refused whatever the signature") {
    for (const char* alg : {"none", "HS256", "RS512"}) {
      std::string h = base64url_encode(std::string(R"({"alg":")") + alg + R"("})");
      CHECK_FALSE(verifier->verify(h + "." + part(*token, 1) + ".").is_ok());
      CHECK_FALSE(verifier->verify(h + "." + part(*token, 1) + "." + part(*token, 2)).is_ok());
    }
  }
  SECTION("malformed tokens are Unauthorized, not crashes") {
    for (std::string t : {"", "a", "a.b", "a.b.c.d", "!!.??.**", "e30.e30.", "bnVsbA.e30.e30"}) {
      auto r = verifier->verify(t);
      REQUIRE_FALSE(r.is_ok());
      CHECK(r.status().code() == Code::kUnauthorized);
    }
    CHECK_FALSE(verifier->verify(std::string(20000, 'a')).is_ok());
  }
  SECTION("a verifier knowing both keys accepts tokens of either") {
    std::vector<std::string> both = keys->verify_key_pems;
    both.push_back(other->signing_key_pem);
    auto v2 = JwtVerifier::from_pems(both);
    REQUIRE(v2.is_ok());
    auto t2 = JwtSigner::from_pem(other->signing_key_pem)->sign(claims);
    CHECK(v2->verify(*token).is_ok());
    CHECK(v2->verify(*t2).is_ok());
  }
}

TEST_CASE("only RSA keys can sign or verify service-account tokens") {
  // An EC key (what the rest of the PKI uses) is refused with a reason.
  const std::string ec =
      "-----BEGIN EC PRIVATE KEY-----\n"
      "MHcCAQEEINfabzmv1wBSPweg873WhhAMlKnTWl7oCahH/f3gp3bzoAoGCCqGSM49\n"
      "AwEHoUQDQgAEbGYMBi0KNOtUZxPaOWPowAU4jDDzHAjTtg+45OU1co3hTA57a6fj\n"
      "i21eHjQcQhz57h+aHY+UFAynfxs7tDgZ3Q==\n"
      "-----END EC PRIVATE KEY-----\n";
  auto s = JwtSigner::from_pem(ec);
  REQUIRE_FALSE(s.is_ok());
  CHECK_THAT(s.status().message(), Catch::Contains("RSA"));
}

}  // namespace
}  // namespace k3c::pki

// Service-account token claims: what TokenRequest issues and what authentication accepts
// (issuer, audiences, expiry with upstream's minute of leeway, subject consistency).
#include "roles/apiserver/service_account_tokens.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "temp_dir.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;

struct TokensFixture {
  TempDir dir;
  ManualClock clock;
  pki::ServiceAccountKeys keys = *pki::ensure_service_account_keys(dir.path());
  ServiceAccountTokens tokens{*pki::JwtSigner::from_pem(keys.signing_key_pem),
                              *pki::JwtVerifier::from_pems(keys.verify_key_pems),
                              "https://kubernetes.default.svc.cluster.local",
                              {"https://kubernetes.default.svc.cluster.local", "k3c"},
                              clock};

  TokenClaims claims(std::chrono::seconds ttl = 3600s) const {
    TokenClaims c;
    c.namespace_ = "default";
    c.service_account = "bot";
    c.service_account_uid = "uid-1";
    c.audiences = tokens.api_audiences();
    c.expires = clock.wall_now() + ttl;
    return c;
  }
};

nlohmann::json payload_of(const std::string& token) {
  size_t a = token.find('.') + 1, b = token.find('.', a);
  return nlohmann::json::parse(*pki::base64url_decode(token.substr(a, b - a)));
}

TEST_CASE("issued tokens carry upstream's claims") {
  TokensFixture f;
  TokenClaims c = f.claims();
  c.pod_name = "web-1";
  c.pod_uid = "pod-uid";
  auto token = f.tokens.issue(c);
  REQUIRE(token.is_ok());
  auto p = payload_of(*token);
  CHECK(p["iss"] == "https://kubernetes.default.svc.cluster.local");
  CHECK(p["sub"] == "system:serviceaccount:default:bot");
  CHECK(p["aud"] == nlohmann::json({"https://kubernetes.default.svc.cluster.local", "k3c"}));
  CHECK(p["exp"].get<int64_t>() - p["iat"].get<int64_t>() == 3600);
  CHECK(p["nbf"] == p["iat"]);
  CHECK(p["jti"].get<std::string>().size() == 36);
  CHECK(p["kubernetes.io"] ==
        nlohmann::json({{"namespace", "default"},
                        {"pod", {{"name", "web-1"}, {"uid", "pod-uid"}}},
                        {"serviceaccount", {{"name", "bot"}, {"uid", "uid-1"}}}}));
  auto back = f.tokens.verify(*token);
  REQUIRE(back.is_ok());
  CHECK(back->service_account == "bot");
  CHECK(back->service_account_uid == "uid-1");
  CHECK(back->pod_name == "web-1");
  CHECK(back->credential_id == p["jti"]);
}

TEST_CASE("tokens expire, with a minute of leeway") {
  TokensFixture f;
  auto token = *f.tokens.issue(f.claims(600s));
  f.clock.advance(600s + 59s);
  CHECK(f.tokens.verify(token).is_ok());
  f.clock.advance(2s);
  auto late = f.tokens.verify(token);
  REQUIRE_FALSE(late.is_ok());
  CHECK(late.status().code() == Code::kUnauthorized);
  CHECK_THAT(late.status().message(), Catch::Contains("expired"));
}

TEST_CASE("a token for another audience does not authenticate here") {
  TokensFixture f;
  TokenClaims c = f.claims();
  c.audiences = {"vault"};
  auto token = *f.tokens.issue(c);
  CHECK_FALSE(f.tokens.verify(token).is_ok());
  auto for_vault = f.tokens.verify(token, {"vault"});
  REQUIRE(for_vault.is_ok());
  CHECK(for_vault->audiences == std::vector<std::string>{"vault"});
}

TEST_CASE("tokens of another issuer or another key are refused") {
  TokensFixture f;
  TokensFixture other;
  auto foreign = *other.tokens.issue(other.claims());
  CHECK_FALSE(f.tokens.verify(foreign).is_ok());
  ServiceAccountTokens elsewhere{*pki::JwtSigner::from_pem(f.keys.signing_key_pem),
                                 *pki::JwtVerifier::from_pems(f.keys.verify_key_pems),
                                 "https://kubernetes.default.svc.other", f.tokens.api_audiences(),
                                 f.clock};
  auto t = *elsewhere.issue(f.claims());
  auto r = f.tokens.verify(t);
  REQUIRE_FALSE(r.is_ok());
  CHECK_THAT(r.status().message(), Catch::Contains("issuer"));
}

}  // namespace
}  // namespace k3c::apiserver

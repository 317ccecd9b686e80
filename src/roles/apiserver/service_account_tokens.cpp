// Service-account token claims (see service_account_tokens.h).
#include "roles/apiserver/service_account_tokens.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/ids.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int64_t kLeewaySeconds = 60;

int64_t unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

Status token_unauthorized(std::string why) { return error(Code::kUnauthorized, std::move(why)); }

// A string member of `o`, "" when absent or not a string.
std::string token_text(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

namespace {

std::shared_future<Result<TokenKeys>> ready(TokenKeys keys) {
  std::promise<Result<TokenKeys>> made;
  made.set_value(std::move(keys));
  return made.get_future().share();
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens(pki::JwtSigner signer, pki::JwtVerifier verifier,
                                           std::string issuer,
                                           std::vector<std::string> api_audiences,
                                           const Clock& clock)
    : ServiceAccountTokens(ready({std::move(signer), std::move(verifier)}), std::move(issuer),
                           std::move(api_audiences), clock) {}

ServiceAccountTokens::ServiceAccountTokens(std::shared_future<Result<TokenKeys>> keys,
                                           std::string issuer,
                                           std::vector<std::string> api_audiences,
                                           const Clock& clock)
    : keys_(std::move(keys)),
      issuer_(std::move(issuer)),
      api_audiences_(std::move(api_audiences)),
      clock_(clock) {}

Result<std::string> ServiceAccountTokens::issue(TokenClaims c) const {
  if (c.credential_id.empty()) c.credential_id = new_uuid();
  int64_t now = unix_seconds(clock_.wall_now());
  json k8s = {{"namespace", c.namespace_},
              {"serviceaccount", {{"name", c.service_account}, {"uid", c.service_account_uid}}}};
  if (!c.pod_name.empty()) k8s["pod"] = {{"name", c.pod_name}, {"uid", c.pod_uid}};
  if (!c.secret_name.empty()) k8s["secret"] = {{"name", c.secret_name}, {"uid", c.secret_uid}};
  json claims = {{"aud", c.audiences},
                 {"exp", unix_seconds(c.expires)},
                 {"iat", now},
                 {"iss", issuer_},
                 {"jti", c.credential_id},
                 {"kubernetes.io", std::move(k8s)},
                 {"nbf", now},
                 {"sub", "system:serviceaccount:" + c.namespace_ + ":" + c.service_account}};
  const Result<TokenKeys>& keys = keys_.get();
  if (!keys.is_ok()) return keys.status();
  return keys->signer.sign(claims.dump());
}

Result<TokenClaims> ServiceAccountTokens::verify(std::string_view token,
                                                 std::vector<std::string> audiences) const {
  const Result<TokenKeys>& keys = keys_.get();
  if (!keys.is_ok()) return keys.status();
  ASSIGN_OR_RETURN(std::string payload, keys->verifier.verify(token));
  json c = json::parse(payload, nullptr, false);
  if (!c.is_object()) return token_unauthorized("invalid token: the claims are not a JSON object");
  if (token_text(c, "iss") != issuer_) return token_unauthorized("invalid token: unknown issuer");
  // "aud" is a string or a list of strings (RFC 7519 section 4.1.3).
  std::vector<std::string> aud;
  if (c["aud"].is_string()) aud.push_back(c["aud"].get<std::string>());
  if (c["aud"].is_array()) {
    for (const auto& a : c["aud"]) {
      if (a.is_string()) aud.push_back(a.get<std::string>());
    }
  }
  if (audiences.empty()) audiences = api_audiences_;
  std::vector<std::string> matched;
  for (const auto& a : audiences) {
    if (std::find(aud.begin(), aud.end(), a) != aud.end()) matched.push_back(a);
  }
  if (matched.empty()) return token_unauthorized("invalid token: token audiences do not match");
  if (!c["exp"].is_number_integer() || !c["nbf"].is_number_integer()) {
    return token_unauthorized("invalid token: exp and nbf are required");
  }
  int64_t now = unix_seconds(clock_.wall_now());
  if (now > c["exp"].get<int64_t>() + kLeewaySeconds) {
    return token_unauthorized("invalid token: the token has expired");
  }
  if (now + kLeewaySeconds < c["nbf"].get<int64_t>()) {
    return token_unauthorized("invalid token: the token is not valid yet");
  }
  const json& k8s = c.contains("kubernetes.io") ? c["kubernetes.io"] : json();
  if (!k8s.is_object() || !k8s["serviceaccount"].is_object()) {
    return token_unauthorized("invalid token: not a bound service-account token");
  }
  TokenClaims out;
  out.namespace_ = token_text(k8s, "namespace");
  out.service_account = token_text(k8s["serviceaccount"], "name");
  out.service_account_uid = token_text(k8s["serviceaccount"], "uid");
  if (k8s.contains("pod") && k8s["pod"].is_object()) {
    out.pod_name = token_text(k8s["pod"], "name");
    out.pod_uid = token_text(k8s["pod"], "uid");
  }
  if (k8s.contains("secret") && k8s["secret"].is_object()) {
    out.secret_name = token_text(k8s["secret"], "name");
    out.secret_uid = token_text(k8s["secret"], "uid");
  }
  if (out.namespace_.empty() || out.service_account.empty() ||
      token_text(c, "sub") !=
          "system:serviceaccount:" + out.namespace_ + ":" + out.service_account) {
    return token_unauthorized("invalid token: the subject does not match the service account");
  }
  out.audiences = std::move(matched);
  out.credential_id = token_text(c, "jti");
  out.expires =
      std::chrono::system_clock::time_point(std::chrono::seconds(c["exp"].get<int64_t>()));
  return out;
}

}  // namespace k3c::apiserver

// Service-account tokens as Kubernetes issues them (TokenRequest) and reads them (bearer
// authentication, TokenReview): RS256 JWTs whose claims name the issuer, audiences, times
// and the account (and, when bound, the pod). This class knows only tokens and time; whether
// the account still exists is the authenticator's check (token_authenticator.h).
//
// Immutable after construction; any thread.
#pragma once

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "pki/pki.h"

namespace k3c::apiserver {

struct TokenClaims {
  std::string namespace_;
  std::string service_account;
  std::string service_account_uid;
  std::string pod_name;  // both "" unless the token is bound to a pod
  std::string pod_uid;
  std::string secret_name;  // both "" unless the token is bound to a secret
  std::string secret_uid;
  std::vector<std::string> audiences;
  std::string credential_id;  // the JWT ID (jti)
  std::chrono::system_clock::time_point expires;
};

// The signing key and the keys tokens are verified with.
struct TokenKeys {
  pki::JwtSigner signer;
  pki::JwtVerifier verifier;
};

class ServiceAccountTokens {
 public:
  // `issuer`: https://kubernetes.default.svc.<cluster-domain>, as k3s. `api_audiences`:
  // what tokens must be meant for to authenticate here, and the default audiences of new
  // tokens (k3s: the issuer and the program's name).
  ServiceAccountTokens(pki::JwtSigner signer, pki::JwtVerifier verifier, std::string issuer,
                       std::vector<std::string> api_audiences, const Clock& clock);
  // The same with keys that may still be in the making: a new RSA key takes a few hundred
  // milliseconds, which a first start should not wait for. issue() and verify() wait for
  // them, and fail with their error if making them failed.
  ServiceAccountTokens(std::shared_future<Result<TokenKeys>> keys, std::string issuer,
                       std::vector<std::string> api_audiences, const Clock& clock);

  // A token for `claims` (credential_id is filled in when empty), valid from now until
  // claims.expires.
  Result<std::string> issue(TokenClaims claims) const;
  // The claims of a token that verifies, comes from this issuer, is meant for one of
  // `audiences` (the API audiences when empty) and is within its validity (a minute of
  // clock skew allowed, as upstream). kUnauthorized otherwise, with the reason.
  Result<TokenClaims> verify(std::string_view token, std::vector<std::string> audiences = {}) const;

  const std::string& issuer() const { return issuer_; }
  const std::vector<std::string>& api_audiences() const { return api_audiences_; }
  const Clock& clock() const { return clock_; }

 private:
  std::shared_future<Result<TokenKeys>> keys_;
  std::string issuer_;
  std::vector<std::string> api_audiences_;
  const Clock& clock_;
};

}  // namespace k3c::apiserver

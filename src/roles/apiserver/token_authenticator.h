// Bearer-token authentication beside client certificates: a service-account JWT
// (service_account_tokens.h) authenticates as system:serviceaccount:<ns>:<name> while the
// account (and the pod or secret it is bound to) still exists with the uid in the token.
// Node and agent tokens are a later issue.
//
// Thread-safety: every method from any thread; the class holds no mutable state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "http/http.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/service_account_tokens.h"
#include "roles/apiserver/watch_cache.h"

namespace k3c::apiserver {

inline constexpr std::string_view kAuthenticatedGroup = "system:authenticated";
inline constexpr std::string_view kMastersGroup = "system:masters";

// Who `user` is, as upstream's authentication.k8s.io UserInfo: username and groups, uid and
// extra when set. What the reviews answer with and CertificateSigningRequests record.
nlohmann::json user_info(const http::PeerIdentity& user);

class TokenAuthenticator {
 public:
  TokenAuthenticator(const ServiceAccountTokens& tokens, WatchCache& cache)
      : tokens_(tokens), cache_(cache) {}

  // Who sent `request`: a verified client certificate wins (as upstream's authenticator
  // order has it); otherwise an "Authorization: Bearer" token sets request.peer. Every
  // authenticated user gains the group system:authenticated. A token that does not
  // authenticate is a 401 (upstream's Unauthorized Status); no credentials leave
  // request.peer empty.
  std::optional<ApiError> authenticate(http::Request& request) const;

  struct Reviewed {
    http::PeerIdentity user;
    std::vector<std::string> audiences;  // those of `audiences` the token is meant for
  };
  // The user a token stands for (TokenReview); kUnauthorized with the reason otherwise.
  Result<Reviewed> review(std::string_view token, std::vector<std::string> audiences) const;

  const ServiceAccountTokens& tokens() const { return tokens_; }

 private:
  Status still_exists(const std::string& resource, const std::string& ns, const std::string& name,
                      const std::string& uid) const;

  const ServiceAccountTokens& tokens_;
  WatchCache& cache_;
};

}  // namespace k3c::apiserver

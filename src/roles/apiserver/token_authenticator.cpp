// Bearer-token authentication (see token_authenticator.h).
#include "roles/apiserver/token_authenticator.h"

#include <algorithm>

namespace k3c::apiserver {
namespace {

void add_group(http::PeerIdentity& user, std::string_view group) {
  if (std::find(user.groups.begin(), user.groups.end(), group) == user.groups.end()) {
    user.groups.emplace_back(group);
  }
}

// The token of "Authorization: Bearer <token>", as upstream's bearertoken authenticator
// reads it (scheme case-insensitive); "" when there is none.
std::string bearer_token(const http::Request& request) {
  std::string_view h = request.header("authorization").value_or("");
  size_t space = h.find(' ');
  if (space == std::string_view::npos) return "";
  std::string scheme(h.substr(0, space));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), ::tolower);
  if (scheme != "bearer") return "";
  std::string_view token = h.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return std::string(token);
}

}  // namespace

nlohmann::json user_info(const http::PeerIdentity& u) {
  nlohmann::json info = {{"username", u.user}, {"groups", u.groups}};
  if (!u.uid.empty()) info["uid"] = u.uid;
  if (!u.extra.empty()) {
    nlohmann::json extra = nlohmann::json::object();
    for (const auto& [k, v] : u.extra) extra[k] = v;
    info["extra"] = std::move(extra);
  }
  return info;
}

std::optional<ApiError> TokenAuthenticator::authenticate(http::Request& request) const {
  if (!request.peer) {
    std::string token = bearer_token(request);
    if (token.empty()) return std::nullopt;
    auto reviewed = review(token, {});
    if (!reviewed.is_ok()) return api_error(Code::kUnauthorized, "Unauthorized");
    request.peer = std::move(reviewed->user);
  }
  add_group(*request.peer, kAuthenticatedGroup);
  return std::nullopt;
}

Status TokenAuthenticator::still_exists(const std::string& resource, const std::string& ns,
                                        const std::string& name, const std::string& uid) const {
  auto o = cache_.get("/registry/" + resource + "/" + ns + "/" + name, -1);
  if (!o.is_ok() || (*o)->uid != uid) {
    return error(Code::kUnauthorized, "invalid token: the " + resource + " object " + ns + "/" +
                                          name + " it is bound to no longer exists");
  }
  return Status::ok();
}

Result<TokenAuthenticator::Reviewed> TokenAuthenticator::review(
    std::string_view token, std::vector<std::string> audiences) const {
  ASSIGN_OR_RETURN(TokenClaims c, tokens_.verify(token, std::move(audiences)));
  RETURN_IF_ERROR(
      still_exists("serviceaccounts", c.namespace_, c.service_account, c.service_account_uid));
  if (!c.pod_name.empty())
    RETURN_IF_ERROR(still_exists("pods", c.namespace_, c.pod_name, c.pod_uid));
  if (!c.secret_name.empty()) {
    RETURN_IF_ERROR(still_exists("secrets", c.namespace_, c.secret_name, c.secret_uid));
  }
  Reviewed r;
  r.user.user = "system:serviceaccount:" + c.namespace_ + ":" + c.service_account;
  r.user.uid = c.service_account_uid;
  r.user.groups = {"system:serviceaccounts", "system:serviceaccounts:" + c.namespace_,
                   std::string(kAuthenticatedGroup)};
  if (!c.credential_id.empty()) {
    r.user.extra.push_back(
        {"authentication.kubernetes.io/credential-id", {"JTI=" + c.credential_id}});
  }
  if (!c.pod_name.empty()) {
    r.user.extra.push_back({"authentication.kubernetes.io/pod-name", {c.pod_name}});
    r.user.extra.push_back({"authentication.kubernetes.io/pod-uid", {c.pod_uid}});
  }
  r.audiences = std::move(c.audiences);
  return r;
}

}  // namespace k3c::apiserver

// Authorized requests to one endpoint (see endpoint_session.h).
#include "runtime/registry/endpoint_session.h"

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/percent_encoding.h"
#include "runtime/internal/json_fields.h"
#include "runtime/registry/auth_challenge.h"

namespace k3c::runtime::registry {
namespace {

std::string host_of(const std::string& url) {
  const size_t start = url.find("://");
  if (start == std::string::npos) return "";
  const std::string rest = url.substr(start + 3);
  return rest.substr(0, rest.find_first_of("/?#"));
}

}  // namespace

std::string status_text(int status) {
  static const std::map<int, const char*> kTexts = {{400, "Bad Request"},
                                                    {401, "Unauthorized"},
                                                    {403, "Forbidden"},
                                                    {404, "Not Found"},
                                                    {405, "Method Not Allowed"},
                                                    {429, "Too Many Requests"},
                                                    {500, "Internal Server Error"},
                                                    {502, "Bad Gateway"},
                                                    {503, "Service Unavailable"},
                                                    {504, "Gateway Timeout"}};
  auto it = kTexts.find(status);
  return std::to_string(status) + (it == kTexts.end() ? "" : std::string(" ") + it->second);
}

std::string registry_errors(std::string_view body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return "";
  auto errors = doc.find("errors");
  if (errors == doc.end() || !errors->is_array()) return "";
  std::string out;
  for (const auto& e : *errors) {
    if (!e.is_object()) continue;
    std::string line = internal::string_field(e, "message");
    if (line.empty()) line = internal::string_field(e, "code");
    if (!line.empty()) out += (out.empty() ? "" : "; ") + line;
    if (out.size() > 512) break;  // a hostile registry gets no page-long message
  }
  return out;
}

EndpointSession::EndpointSession(HttpTransport& transport, const Endpoint& endpoint,
                                 std::optional<RegistryAuth> credentials,
                                 std::chrono::milliseconds token_timeout)
    : transport_(transport),
      endpoint_(endpoint),
      credentials_(std::move(credentials)),
      token_timeout_(token_timeout) {}

Result<TransportResponse> EndpointSession::send(TransportRequest request) {
  request.tls = endpoint_.config.tls;
  const auto base_headers = request.headers;
  for (int attempt = 0;; ++attempt) {
    request.headers = base_headers;
    if (!authorization_.empty()) request.headers.emplace_back("Authorization", authorization_);
    Result<TransportResponse> sent = transport_.send(request);
    if (!sent.is_ok()) {
      return error(sent.status().code(), "failed to do request: " + sent.status().message());
    }
    TransportResponse resp = std::move(sent).value();
    if (resp.status != 401 || attempt > 0) return resp;
    Result<std::string> auth = authorize(resp);
    if (!auth.is_ok()) {
      if (auth.status().code() == Code::kNotFound) return resp;  // no usable challenge
      return error(auth.status().code(), "failed to authorize: " + auth.status().message());
    }
    if (*auth == authorization_) return resp;  // the same credentials would fail again
    authorization_ = std::move(auth).value();
  }
}

Result<std::string> EndpointSession::authorize(const TransportResponse& challenged) {
  const std::optional<std::string_view> header = challenged.header("www-authenticate");
  const std::vector<Challenge> challenges =
      header ? parse_challenges(*header) : std::vector<Challenge>{};
  for (const Challenge& c : challenges) {
    if (c.scheme != "bearer") continue;
    ASSIGN_OR_RETURN(std::string token, fetch_token(c.params));
    return "Bearer " + token;
  }
  for (const Challenge& c : challenges) {
    if (c.scheme == "basic" && credentials_ && !credentials_->username.empty()) {
      return "Basic " + base64_encode(credentials_->username + ":" + credentials_->password);
    }
  }
  return error(Code::kNotFound, "no usable challenge");
}

Result<std::string> EndpointSession::fetch_token(const std::map<std::string, std::string>& params) {
  auto realm = params.find("realm");
  if (realm == params.end() ||
      (!realm->second.starts_with("https://") && !realm->second.starts_with("http://"))) {
    return error(Code::kInvalid, "the registry's Bearer challenge has no http(s) realm");
  }
  std::string scope = "repository:" + endpoint_.path + ":pull";
  if (auto s = params.find("scope"); s != params.end() && !s->second.empty()) scope = s->second;
  const std::string service = params.contains("service") ? params.at("service") : "";
  TransportRequest req;
  req.timeout = token_timeout_;
  req.idle_timeout = token_timeout_;
  req.body_limit = 1 << 20;
  // The endpoint's TLS settings hold for its own host only; another realm host (such as
  // auth.docker.io) is verified against the system's CAs.
  if (host_of(realm->second) == endpoint_.host) req.tls = endpoint_.config.tls;
  const bool has_identity = credentials_ && !credentials_->identity_token.empty();
  std::string what = "anonymous token";
  if (has_identity) {
    what = "oauth token";
    req.method = "POST";
    req.url = realm->second;
    req.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    req.body = "grant_type=refresh_token&client_id=k3c&refresh_token=" +
               percent_encode(credentials_->identity_token, false) +
               "&service=" + percent_encode(service, false) +
               "&scope=" + percent_encode(scope, false);
  } else {
    req.url = realm->second + (realm->second.find('?') == std::string::npos ? "?" : "&") +
              "scope=" + percent_encode(scope, false) +
              (service.empty() ? "" : "&service=" + percent_encode(service, false));
    if (credentials_ && !credentials_->username.empty()) {
      what = "token";
      req.headers.emplace_back(
          "Authorization",
          "Basic " + base64_encode(credentials_->username + ":" + credentials_->password));
    }
  }
  Result<TransportResponse> resp = transport_.send(req);
  if (!resp.is_ok()) {
    return error(resp.status().code(), "failed to fetch " + what + ": " + resp.status().message());
  }
  if (resp->status != 200) {
    const Code code = resp->status == 401   ? Code::kUnauthorized
                      : resp->status == 403 ? Code::kForbidden
                                            : Code::kServiceUnavailable;
    return error(code, "failed to fetch " + what + ": unexpected status from " + req.method +
                           " request to " + realm->second + ": " + status_text(resp->status));
  }
  Result<std::string> token = parse_token_response(resp->body);
  if (!token.is_ok())
    return error(Code::kInvalid, "failed to fetch " + what + ": " + token.status().message());
  return token;
}

}  // namespace k3c::runtime::registry

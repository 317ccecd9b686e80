// Requests to one registry endpoint with its authorization: a request answered 401 with a
// Bearer challenge gets a token from the challenge's realm (anonymously, with basic
// credentials, or with an identity token as an OAuth2 refresh token) and is sent again once;
// a Basic challenge is answered with the credentials. The authorization is then kept for the
// session's later requests (the manifest and every blob of one pull).
// One thread at a time.
#pragma once

#include <optional>
#include <string>

#include "core/status.h"
#include "runtime/registry/endpoints.h"
#include "runtime/registry/transport.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime::registry {

class EndpointSession {
 public:
  EndpointSession(HttpTransport& transport, const Endpoint& endpoint,
                  std::optional<RegistryAuth> credentials, std::chrono::milliseconds token_timeout);

  // Sends `request` (its URL under this endpoint) with the endpoint's TLS settings and the
  // session's authorization, answering one auth challenge. Errors read "failed to do
  // request: ..." (transport) or "failed to authorize: ..." (the token endpoint).
  Result<TransportResponse> send(TransportRequest request);

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  Result<std::string> authorize(const TransportResponse& challenged);
  Result<std::string> fetch_token(const std::map<std::string, std::string>& params);

  HttpTransport& transport_;
  const Endpoint endpoint_;
  const std::optional<RegistryAuth> credentials_;
  const std::chrono::milliseconds token_timeout_;
  std::string authorization_;  // "Bearer ..." or "Basic ..."; "" until challenged
};

// "404 Not Found" and so on, as Go's net/http prints a status.
std::string status_text(int status);
// The registry's error list ({"errors":[{"code":...,"message":...}]}) as one line, or "".
std::string registry_errors(std::string_view body);

}  // namespace k3c::runtime::registry

// The in-process transport: calls the apiserver's handler chain (http::Handler) directly,
// as the identity the role was given. Watches read the handler's BodyStream.
#pragma once

#include "client/client.h"
#include "http/http.h"

namespace k3c::client {

class InProcessClient final : public Client {
 public:
  // `handler` must stay callable for the client's lifetime.
  InProcessClient(http::Handler handler, http::PeerIdentity identity);

  Result<Reply> request(std::string_view method, std::string_view target, std::string_view body,
                        std::string_view content_type) override;
  Result<std::unique_ptr<WatchLines>> watch(std::string_view target) override;

 private:
  Result<http::Response> call(std::string_view method, std::string_view target,
                              std::string_view body, std::string_view content_type);

  http::Handler handler_;
  http::PeerIdentity identity_;
};

}  // namespace k3c::client

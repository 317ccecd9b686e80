// The HTTPS transport of the API client (client.h): what a role outside the server process
// (`k3c bench hollow-nodes`, later `k3c agent`) talks to the apiserver through. Requests go
// over a pool of kept-alive TLS connections (made as needed, at most `max_idle_connections`
// kept between requests, none kept idle longer than `idle_keep`, below the server's idle
// timeout); a request that fails on a reused connection is retried once on a new one unless
// it is a POST (a stale keep-alive connection must not turn into a lost request; a create
// must not be sent twice). Each watch has a connection of its own for its lifetime.
//
// Thread-safety: request() and watch() from any number of threads at once.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/client.h"
#include "http/http_client.h"
#include "http/http_connection.h"

namespace k3c::client {

struct HttpsClientOptions {
  std::string server;  // https://host:port, as a kubeconfig's cluster.server
  http::ClientTls tls;
  std::string bearer_token;  // "" with a client certificate
  size_t max_idle_connections = 32;
  std::chrono::seconds idle_keep{60};
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{60'000};
  size_t body_limit = 256 << 20;  // a list page of 500 large objects stays far below
};

class HttpsClient final : public Client {
 public:
  static Result<std::unique_ptr<HttpsClient>> make(HttpsClientOptions options);

  Result<Reply> request(std::string_view method, std::string_view target, std::string_view body,
                        std::string_view content_type) override;
  Result<std::unique_ptr<WatchLines>> watch(std::string_view target) override;

  HttpsClient(HttpsClientOptions options, http::Url origin,
              std::shared_ptr<const http::ClientTlsContext> tls);

 private:
  struct Idle {
    std::unique_ptr<http::Connection> connection;
    std::chrono::steady_clock::time_point since;
  };
  Result<std::unique_ptr<http::Connection>> connect() const;
  std::unique_ptr<http::Connection> take_idle();
  void give_back(std::unique_ptr<http::Connection> connection);
  http::OutgoingRequest outgoing(std::string_view method, std::string_view target,
                                 std::string_view body, std::string_view content_type) const;

  const HttpsClientOptions options_;
  const http::Url origin_;
  const std::shared_ptr<const http::ClientTlsContext> tls_;
  std::mutex mu_;
  std::vector<Idle> idle_;  // guarded by mu_; newest last
};

}  // namespace k3c::client

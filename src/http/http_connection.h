// A kept-alive HTTPS/1.1 client connection (Boost.Beast over OpenSSL, templates kept in
// http_connection.cpp): many requests one after another on one TLS session, and answers
// streamed piece by piece (a watch). This is what an API client with a connection pool is
// built from (client/https_client.h); http_client.h's fetch() is the one-shot client for
// registries. Every read and write has a deadline; cancel() ends whatever runs at once.
//
// Thread-safety: one thread uses a Connection at a time; cancel() may be called from any
// thread at any time, also while another thread waits in read_stream().
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "http/duplex.h"
#include "http/http_client.h"

namespace k3c::http {

// The client's TLS settings compiled once (trust anchors, client certificate) and shared by
// every connection made with it.
class ClientTlsContext {
 public:
  struct Impl;
  static Result<std::shared_ptr<const ClientTlsContext>> make(const ClientTls& tls);
  explicit ClientTlsContext(std::unique_ptr<Impl> impl);
  ~ClientTlsContext();
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct OutgoingRequest {
  std::string method = "GET";
  std::string target;  // path and query, escaped
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

class Connection {
 public:
  // Connects to `origin`'s host and port (https only) and completes the TLS handshake within
  // `timeout`. Errors: kServiceUnavailable (cannot connect), kTimeout, kInvalid (TLS
  // verification), kBadRequest (not https).
  static Result<std::unique_ptr<Connection>> open(const Url& origin,
                                                  std::shared_ptr<const ClientTlsContext> tls,
                                                  std::chrono::milliseconds timeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // One request and its whole answer (a body over `body_limit` is kRequestEntityTooLarge).
  // After any error the connection is not reusable().
  Result<ClientResponse> exchange(const OutgoingRequest& request, std::chrono::milliseconds timeout,
                                  size_t body_limit);
  // A request whose 2xx answer is streamed: returns once the headers are read; the body then
  // comes through read_stream(). A non-2xx answer comes back whole (body up to 1 MiB).
  Result<ClientResponse> start_stream(const OutgoingRequest& request,
                                      std::chrono::milliseconds timeout);
  // The next bytes of a streamed body; "" when `wait` passed with nothing new (or the body
  // ended: see stream_ended()). An error once the connection failed or was cancelled.
  Result<std::string> read_stream(std::chrono::milliseconds wait);
  bool stream_ended() const;

  // A request that asks to switch protocols (Upgrade: SPDY/3.1, websocket). Returns once the
  // answer's headers are read: after a 101, splice() carries the new protocol; any other
  // answer comes back whole (body up to 1 MiB) and ends the connection.
  Result<ClientResponse> start_upgrade(const OutgoingRequest& request,
                                       std::chrono::milliseconds timeout);
  // After a 101 from start_upgrade: copies bytes both ways between this connection and `peer`
  // until either side closes or fails, then closes both. Blocks; uses one more thread for the
  // peer -> connection direction.
  void splice(Duplex& peer);

  // Ends the exchange or stream in progress and the connection (any thread).
  void cancel();
  // The server kept the connection open and nothing failed: another request may follow.
  bool reusable() const;

 private:
  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace k3c::http

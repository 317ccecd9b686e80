// An HTTPS/1.1 server (Boost.Beast over OpenSSL) in the shape of Beast's advanced server
// examples: one io_context on a few threads, a strand and a coroutine per connection,
// limits and deadlines on every read and write, a bounded number of connections.
// Handlers run on a separate worker pool because they may block (store writes wait for a
// group commit); streaming bodies (watches) are written from the connection's coroutine;
// a switched protocol (Response::upgrade: WebSocket, SPDY) runs on a thread of its own over a
// blocking Duplex whose reads and writes are carried out on the connection's strand.
//
// Ownership: the server owns its threads, the listening socket and every connection.
// Thread-safety: start() and stop() from the owner's thread; the handler is called
// concurrently from the worker pool.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "http/http.h"

namespace k3c::http {

struct ServerOptions {
  std::string bind_address = "0.0.0.0";
  uint16_t port = 6443;  // 0 = any free port (tests); see HttpsServer::port()
  int io_threads = 2;
  int worker_threads = 32;
  size_t body_limit = 3 << 20;    // 3 MiB, as the apiserver: bigger bodies get 413
  size_t header_limit = 1 << 20;  // 1 MiB of request line and headers
  size_t max_connections = 4096;  // past this, a new connection gets 429 and is closed
  size_t max_upgraded = 256;       // switched connections (exec, port-forward); past it, 503
  std::chrono::seconds handshake_timeout{10};
  std::chrono::seconds idle_timeout{120};    // a kept-alive connection with no request
  std::chrono::seconds request_timeout{60};  // reading one request, once it started
  std::chrono::seconds write_timeout{60};    // writing one response or chunk
  // Turns the verified peer certificate of a connection into an identity (nullopt: none).
  std::function<std::optional<PeerIdentity>(SSL*)> identify_peer;
  // Tried first, on the network thread, for every request: it must not block. It answers
  // the cheap requests (a GET served from memory) without the hand-over to the worker pool
  // and back; nullopt sends the request to the handler on the pool.
  std::function<std::optional<Response>(Request&)> fast_handler;
};

class HttpsServer {
 public:
  // Takes ownership of `tls` (an SSL_CTX configured with the serving certificate).
  HttpsServer(ServerOptions options, SSL_CTX* tls, Handler handler);
  ~HttpsServer();
  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  // Binds and starts accepting. Fails when the address cannot be bound.
  Status start();
  // Stops accepting, ends streams, closes connections, joins the threads. Idempotent.
  void stop();
  // The bound port (useful with port 0).
  uint16_t port() const;
  size_t connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace k3c::http

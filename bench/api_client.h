// The API server benchmark's HTTPS/1.1 client: keep-alive connections over TLS with the
// admin client certificate, one blocking connection for setup and single requests, a load
// generator with many concurrent connections, and a fleet of long-lived watch connections.
// Boost.Beast and Asio live only in api_client.cpp; this header names neither.
//
// Ownership: ApiClient owns the TLS context; connections, load runs and watch fleets made
// from it borrow it and must not outlive it. Thread-safety: ApiClient's methods may be
// called from any thread; one ApiConnection is used by one thread at a time.
#pragma once

#include <openssl/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "pki/pki.h"

namespace k3c::bench {

// One answer to one request. Transport failures are Status errors, not answers.
struct Answer {
  int status = 0;
  std::string body;
};

// One keep-alive connection, used synchronously. A request on a connection the server closed
// fails; open another.
class ApiConnection {
 public:
  virtual ~ApiConnection() = default;
  virtual Result<Answer> request(std::string_view method, std::string_view target,
                                 std::string_view body = {}) = 0;
};

// What one client of a load run sends next: `n` is the run's request number, unique over
// all of its clients (so it can name objects).
struct RequestSpec {
  std::string method = "GET";
  std::string target;
  std::string body;  // sent as application/json when not empty
};
using RequestMaker = std::function<RequestSpec(int client, int64_t n)>;

struct LoadOptions {
  int clients = 1;                    // concurrent keep-alive connections
  std::chrono::nanoseconds duration;  // no request starts after this
  int64_t max_requests = INT64_MAX;   // nor after this many were started
  int threads = 1;                    // client threads running the connections
};

struct LoadResult {
  int64_t answered = 0;             // requests with a response, any status
  int64_t ok = 0;                   // of them 2xx
  std::map<int, int64_t> non_2xx;   // status -> count
  int64_t transport_errors = 0;     // connect, TLS, read or write failures
  std::string first_error;          // the first transport error or non-2xx body
  std::vector<int64_t> latency_ns;  // per answered request, request written to answer read
  double seconds = 0;               // from the start until the last client finished
  double rate() const { return seconds > 0 ? static_cast<double>(ok) / seconds : 0; }
  int64_t errors() const;  // non-2xx answers plus transport errors
};

// Receives every line of every watch stream: which watcher, the line without its newline,
// and steady_clock nanoseconds when the bytes holding the line's end were read. Called from
// the fleet's threads; lines of one watcher arrive in order and never concurrently.
using LineHandler = std::function<void(int watcher, std::string_view line, int64_t recv_ns)>;

// Long-lived watch connections, all reading on the fleet's threads until it is destroyed
// (which closes them).
class WatchFleet {
 public:
  virtual ~WatchFleet() = default;
  virtual int watchers() const = 0;
  // Watchers whose stream ended or failed after its headers arrived.
  virtual int broken() const = 0;
};

class ApiClient {
 public:
  // `tls` comes from pki::make_client_context; the server must present a certificate for
  // `host`.
  ApiClient(std::string host, uint16_t port, pki::SslContextPtr tls);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  // A connected, handshaken connection; fails within `timeout`.
  Result<std::unique_ptr<ApiConnection>> connect(
      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Connects options.clients connections first (not timed), then has each send requests
  // back to back until the duration or the request count runs out. Errors are counted, not
  // returned; a client whose connection fails reconnects once per request it tries.
  LoadResult run_load(const LoadOptions& options, const RequestMaker& make);
  // Opens `watchers` connections that each GET `target` (a watch) on `threads` threads and
  // returns once every one has its response headers (fails when one is not 200 or
  // `timeout` passes first).
  Result<std::unique_ptr<WatchFleet>> watch(int watchers, const std::string& target,
                                            const LineHandler& on_line, int threads,
                                            std::chrono::seconds timeout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace k3c::bench

// The HTTP model shared by k3c's HTTPS servers (the API server, later the kubelet API):
// plain request and response values, free of Boost.Beast, so handler code compiles without
// the heavy Asio/Beast templates (those live in https_server.cpp only).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/duplex.h"

namespace k3c::http {

// Who is on the other end: the client certificate's subject when it verified against the
// server's client CA (set by the HTTPS server), or the user a bearer token names (set by the
// API server's authenticator).
struct PeerIdentity {
  std::string user;                 // certificate CN
  std::vector<std::string> groups;  // certificate O entries
  // Set for service-account tokens: the account's uid and upstream's extra fields
  // (authentication.kubernetes.io/credential-id, pod-name, pod-uid).
  std::string uid;
  std::vector<std::pair<std::string, std::vector<std::string>>> extra;
};

struct Request {
  std::string method;                                      // "GET", "POST", ...
  std::string target;                                      // as sent: path and query
  std::string path;                                        // percent-decoded path without the query
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
  std::optional<PeerIdentity> peer;
  std::string remote_address;

  // The first value of a header or query parameter (names of headers are matched
  // case-insensitively); nullopt when absent.
  std::optional<std::string_view> header(std::string_view name) const;
  std::optional<std::string_view> param(std::string_view name) const;
  // Every value of a repeated query parameter.
  std::vector<std::string_view> params(std::string_view name) const;
};

// A body produced over time (a watch, a log follow). The server calls poll() on the
// connection's thread; the producer calls the wake function (from any thread) whenever
// poll() may have something new.
class BodyStream {
 public:
  // Bytes to send now, as pieces written in order. A piece may be shared by many streams
  // (one serialized watch event goes to every watcher without a copy per watcher).
  struct Chunk {
    std::vector<std::shared_ptr<const std::string>> pieces;
    bool ended = false;  // no more data will come

    void append(std::shared_ptr<const std::string> piece) {
      if (piece && !piece->empty()) pieces.push_back(std::move(piece));
    }
    void append(std::string bytes) {
      if (!bytes.empty()) pieces.push_back(std::make_shared<const std::string>(std::move(bytes)));
    }
    bool empty() const { return pieces.empty(); }
  };
  virtual ~BodyStream() = default;
  // Called once, before the first poll().
  virtual void set_wake(std::function<void()> wake) = 0;
  virtual Chunk poll() = 0;
  // The client went away or the server is stopping: release the producer's resources.
  virtual void cancel() = 0;
};

struct Response {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // When set, the body is sent chunked from this stream after the headers, and `body` is
  // ignored.
  std::shared_ptr<BodyStream> stream;
  // When set (with status 101 and the protocol's headers), the server switches protocols:
  // it writes the status line and headers, then calls this on a thread of its own with the
  // connection's byte stream (after TLS), and closes the connection when it returns. The
  // connection gets no idle timeout then: the protocol keeps its own deadlines.
  std::function<void(Duplex&)> upgrade;

  void set_header(std::string name, std::string value);
};

// Handlers may block (they run on a worker pool, not on the network threads).
using Handler = std::function<Response(Request&)>;

// Splits "a%2Fb?x=1&y=%3D" into the decoded path and query. Returns nullopt for a malformed
// percent escape.
struct Target {
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
};
std::optional<Target> parse_target(std::string_view target);
// Decodes %XX escapes (and '+' as a space in query strings); nullopt when malformed.
std::optional<std::string> percent_decode(std::string_view in, bool plus_is_space);

}  // namespace k3c::http

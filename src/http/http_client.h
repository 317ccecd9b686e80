// A blocking HTTP/1.1 client (Boost.Beast over OpenSSL, templates kept in http_client.cpp):
// one request per connection, a deadline on the whole exchange and an idle limit on every
// read and write, HTTPS verified against the system CAs or a given CA bundle (optionally with
// a client certificate), plain HTTP only for http:// URLs, redirects followed, response
// bodies held in memory up to a limit or streamed to a sink (image layers can be large).
// It knows nothing of what it talks to: registries and `k3c agent` -> server both use it.
//
// Thread-safety: fetch() is a free function; each call owns its own io_context and socket,
// so any number of threads may call it at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace k3c::http {

struct ClientTls {
  std::string ca_file;    // PEM bundle to trust; "" with ca_pem "" = the system's CAs
  std::string ca_pem;     // PEM text to trust (the agent's pinned server CA), instead of a file
  std::string cert_file;  // client certificate (PEM) and its key, both or neither
  std::string key_file;
  std::string cert_pem;  // or the same as PEM text (a kubeconfig's client-certificate-data)
  std::string key_pem;
  bool insecure_skip_verify = false;  // no verification at all (registries.yaml's option)
};

struct ClientRequest {
  std::string method = "GET";
  std::string url;  // http://host[:port]/path?query or https://...
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  ClientTls tls;
  // The whole exchange (connect, TLS, every redirect, the body) ends by this time.
  std::chrono::milliseconds timeout{30000};
  // No byte moved for this long ends the exchange (a stalled peer), whatever `timeout` says.
  std::chrono::milliseconds idle_timeout{30000};
  int max_redirects = 10;  // 0: a 3xx answer is returned as it is
  // Bodies held in memory beyond this end the exchange with kRequestEntityTooLarge.
  size_t body_limit = 4 << 20;
  // When set, the body of a final (non-redirect) 2xx answer is handed here in pieces as it
  // arrives instead of being kept; an error from the sink ends the exchange with it. Bodies
  // of other answers (errors) are still kept in memory (bounded by body_limit), for messages.
  std::function<Status(std::string_view)> sink;
};

struct ClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased, in order
  std::string body;                                          // empty when it went to the sink
  std::string final_url;                                     // after redirects

  // The first value of a header (name matched case-insensitively), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const;
};

// Sends the request and reads the answer. A transport failure (name resolution, refused
// connection, TLS handshake or verification, a malformed answer, the deadline) is an error
// naming the URL; any HTTP status is a response. Codes: kServiceUnavailable for connection
// failures, kTimeout for deadlines, kBadRequest for a malformed URL, kInvalid for a malformed
// answer or a failed TLS verification, kRequestEntityTooLarge for a body over the limit.
Result<ClientResponse> fetch(const ClientRequest& request);

struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6
  uint16_t port = 0;
  std::string target;  // path and query, at least "/"

  // host:port as a Host header writes it (the port omitted when it is the scheme's default).
  std::string authority() const;
  std::string to_string() const;
};

// Parses an absolute http(s) URL; kBadRequest naming what is wrong.
Result<Url> parse_url(std::string_view text);
// `location` (absolute, scheme-relative or a path) resolved against `base`.
Result<Url> resolve_url(const Url& base, std::string_view location);

}  // namespace k3c::http

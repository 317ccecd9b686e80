// The HTTP transport the registry client speaks through. The runtime depends on core only
// (DESIGN.md's layering), so it cannot use src/http directly: the CLI hands it an
// implementation over http::fetch (cli/registry_transport.h), and unit tests hand it an
// in-memory registry.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::registry {

// TLS for one endpoint, from registries.yaml's `configs.<host>.tls`.
struct TlsSettings {
  std::string ca_file;  // "" = the system's CAs
  std::string cert_file;
  std::string key_file;
  bool insecure_skip_verify = false;
};

struct TransportRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  TlsSettings tls;
  std::chrono::milliseconds timeout{30000};       // the whole exchange, redirects included
  std::chrono::milliseconds idle_timeout{30000};  // no byte moved for this long
  size_t body_limit = 4 << 20;                    // bodies kept in memory
  // When set, a 2xx body goes here piece by piece instead of into memory.
  std::function<Status(std::string_view)> sink;
};

struct TransportResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  std::optional<std::string_view> header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
      if (key == name) return std::string_view(value);
    }
    return std::nullopt;
  }
};

// Follows redirects itself (registries send blob reads to storage). Transport failures are
// errors; every HTTP status is a response. Implementations are thread-safe.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Result<TransportResponse> send(const TransportRequest& request) = 0;
};

}  // namespace k3c::runtime::registry

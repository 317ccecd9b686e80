// The registry client's transport (runtime/registry/transport.h) over the project's HTTP
// client, and the node's puller built from registries.yaml. Lives in the CLI because only
// the CLI may link both the runtime and src/http (DESIGN.md's layering).
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "runtime/registry/puller.h"
#include "runtime/registry/transport.h"

namespace k3c::cli {

class HttpClientTransport final : public runtime::registry::HttpTransport {
 public:
  Result<runtime::registry::TransportResponse> send(
      const runtime::registry::TransportRequest& request) override;
};

// The puller of this node: registries.yaml at `registries_path` (a missing file is no
// configuration, as k3s; a bad one is an error naming the file and the key).
Result<std::shared_ptr<runtime::registry::Puller>> make_puller(
    const std::string& registries_path, runtime::registry::PullOptions options = {});

}  // namespace k3c::cli

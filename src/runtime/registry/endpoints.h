// Where to pull a reference from, in order, as k3s configures containerd: the mirror
// endpoints registries.yaml lists for the reference's registry (or for "*"), with the
// mirror's rewrites applied to the repository path, then the registry's default endpoint
// (https://<registry>/v2; docker.io's is registry-1.docker.io), which is always tried last
// and never rewritten. Each endpoint carries the TLS and credentials of its configs entry.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/reference.h"
#include "runtime/registry/registries_config.h"

namespace k3c::runtime::registry {

struct Endpoint {
  std::string base;  // "https://registry-1.docker.io/v2": requests go to base + "/" + path + ...
  std::string host;  // "registry-1.docker.io", "10.0.0.5:5000": the configs key it matched
  std::string path;  // the repository on this endpoint ("library/busybox", maybe rewritten)
  bool is_default = false;
  HostConfig config;
};

// kInvalid for an endpoint URL registries.yaml should not have let through.
Result<std::vector<Endpoint>> endpoints_for(const Reference& ref, const RegistriesConfig& config);

// The plain-HTTP default for registries on the loopback (localhost, 127.0.0.0/8, ::1), as
// containerd's CRI plugin has it; every other default endpoint is HTTPS.
bool is_loopback_host(std::string_view host_port);

}  // namespace k3c::runtime::registry

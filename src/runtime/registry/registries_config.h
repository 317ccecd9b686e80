// /etc/k3c/registries.yaml, in k3s's format (k3s's --private-registry):
//
//   mirrors:
//     docker.io:                      # a registry name, or "*" for every registry without one
//       endpoint: ["https://mirror.example.com:5000", "http://10.0.0.5:5000"]
//       rewrite:
//         "^rancher/(.*)": "mirrorproject/rancher-images/$1"
//   configs:
//     "mirror.example.com:5000":      # an endpoint's host[:port] (or a registry name, or "*")
//       auth: {username: u, password: p}      # or auth: base64("u:p"), or identitytoken: t
//       tls: {ca_file: ..., cert_file: ..., key_file: ..., insecure_skip_verify: false}
//
// Parsing checks everything and names the file and the key of what is wrong.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/regex.h"
#include "core/status.h"
#include "runtime/registry/transport.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime::registry {

struct Rewrite {
  Regex regex;              // Go's syntax, as k3s reads it; regex.pattern() is as written
  std::string replacement;  // $1, ${name}... name the pattern's groups (Go's Expand)
};

struct Mirror {
  std::vector<std::string> endpoints;  // as written
  std::vector<Rewrite> rewrites;       // tried in key order; the first that matches applies
};

struct HostConfig {
  std::optional<RegistryAuth> auth;  // `auth:` decoded into username and password
  TlsSettings tls;
};

struct RegistriesConfig {
  std::map<std::string, Mirror> mirrors;
  std::map<std::string, HostConfig> configs;
};

// `file` names the source in errors. kInvalid for anything wrong.
Result<RegistriesConfig> parse_registries(std::string_view yaml, const std::string& file);
// Reads and parses `path`; a missing file is an empty configuration (as k3s).
Result<RegistriesConfig> load_registries(const std::string& path);

}  // namespace k3c::runtime::registry

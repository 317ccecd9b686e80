// Reading a kubeconfig as a client does (kubectl's rules), for tools that reach a cluster from
// outside (`k3c bench hollow-nodes`). Writing one is pki.h's write_kubeconfig.
#pragma once

#include <string>

#include "core/status.h"

namespace k3c::pki {

// What a client takes from a kubeconfig: the current context's cluster and user. `*-data`
// fields hold base64; the file fields name paths relative to the kubeconfig's own directory;
// the data wins when both are given.
struct KubeconfigCredentials {
  std::string server;
  std::string ca_pem;  // "" = the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;
};

// Reads and parses `path`; kInvalid naming the file and what is wrong (not YAML, no current
// context, a context naming a missing cluster or user, bad base64, no server), kNotFound
// when the file (or a file it names) does not exist.
Result<KubeconfigCredentials> read_kubeconfig(const std::string& path);

}  // namespace k3c::pki

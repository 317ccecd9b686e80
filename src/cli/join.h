// `k3c agent`'s side of joining a server (doc/pki.md "Joining an agent"; the server's side is
// roles/apiserver/supervisor.h): fetch the server CA unverified and pin it by the token's CA
// hash, then over the pinned connection fetch the client CA and the kubelet's client and
// serving certificates (HTTP Basic with the token's password, the node's name, IPs and node
// password in headers), and write them with a kubelet kubeconfig under <data-dir>/agent/.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "pki/pki.h"

namespace k3c::cli {

struct JoinRequest {
  std::string server_url;  // https://HOST:6443
  std::string token;       // K10<hash>::<user>:<password> or a bare password
  std::string node_name;
  std::vector<std::string> node_ips;
  std::string agent_dir;  // <data-dir>/agent
};

// What the agent runs with afterwards; every file is under JoinRequest::agent_dir.
struct AgentCredentials {
  std::string server_ca_pem;
  pki::CertKey client;   // client-kubelet.crt/.key: system:node:<name>
  pki::CertKey serving;  // serving-kubelet.crt/.key: the kubelet API's
  std::string client_ca_file;
  std::string kubeconfig;  // kubelet.kubeconfig
};

// Errors: kInvalid (a malformed token or server URL), kForbidden (the CA does not match the
// token's hash; the node name is taken by another machine), kUnauthorized (the token was
// refused), kServiceUnavailable / kTimeout (the server cannot be reached: worth retrying).
Result<AgentCredentials> join_server(const JoinRequest& request);

// The agent's node password (<agent_dir>/node-password), made on first use and kept.
Result<std::string> node_password(const std::string& agent_dir);

}  // namespace k3c::cli

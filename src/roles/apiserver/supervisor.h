// The endpoints an agent joins with, on the API port as k3s's supervisor serves them
// (doc/pki.md "Joining an agent"). Served ahead of the API's authentication:
//   GET /cacerts                     the server CA (anyone: the agent checks it against the
//                                    CA hash in its token before trusting anything else)
//   GET /v1-k3c/client-ca.crt        the client CA, which the agent's kubelet verifies the
//                                    API server's client certificate with
//   GET /v1-k3c/client-kubelet.crt   a new key and client certificate for the kubelet
//                                    (CN system:node:<name>), cert then key in one PEM text
//   GET /v1-k3c/serving-kubelet.crt  a new key and serving certificate for its port 10250
//                                    (SANs: the node name, localhost, 127.0.0.1, its IPs)
// The /v1-k3c/ paths need HTTP Basic auth with the cluster token's password (401 otherwise)
// and the headers K3c-Node-Name and K3c-Node-Password (400 when missing or malformed), and
// take K3c-Node-IP (comma-separated). The first password a node name is seen with is kept
// (its SHA-256, in <data-dir>/server/cred/node-passwd); another password for that name
// is 403, so a second machine cannot take over a node's name.
//
// Thread-safety: serve() from any thread; the password file is guarded by mu_.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "http/http.h"
#include "pki/pki.h"

namespace k3c::apiserver {

class Supervisor {
 public:
  // `token` is the server's token (its password is what agents must present).
  Supervisor(pki::CertKey server_ca, pki::CertKey client_ca, pki::ParsedToken token,
             std::string node_passwords_path);

  static bool handles(std::string_view path);
  http::Response serve(const http::Request& request);

 private:
  Result<std::string> issue(const http::Request& request, bool serving);
  // kForbidden when `node` is kept with another password; records it on first sight.
  Status check_node_password(const std::string& node, const std::string& password);

  const pki::CertKey server_ca_;
  const pki::CertKey client_ca_;
  const pki::ParsedToken token_;
  const std::string node_passwords_path_;
  std::mutex mu_;  // guards the node password file
};

}  // namespace k3c::apiserver

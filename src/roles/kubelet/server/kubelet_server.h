// The kubelet API over HTTPS (upstream's port 10250, issue 5): a serving certificate issued
// at start from the cluster's server CA (or, on an agent, the one its server issued it) (SANs: the node name, localhost, 127.0.0.1 and the
// node IPs), client certificates verified against the client CA. Only the cluster's admins
// (group system:masters: the admin kubeconfig, the API server's kubelet client) may call it:
// no certificate is 401 Unauthorized, another identity 403 Forbidden with upstream's text.
//
// Ownership: the server owns its HTTPS server and threads; stop() (or the destructor) ends
// them. The handler is called from the server's worker pool.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "http/http.h"

namespace k3c::http {
class HttpsServer;
}

namespace k3c::kubelet {

struct KubeletServerOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 10250;  // 0: any free port
  std::string node_name;
  std::vector<std::string> node_ips;
  // The cluster PKI's directory (<data-dir>/server/tls): server-ca.crt/.key sign the serving
  // certificate, client-ca.crt verifies clients.
  std::string tls_dir;
  // Or (an agent, whose server issued them; upstream's --tls-cert-file, --tls-private-key-file
  // and --client-ca-file): the serving certificate and key, and the client CA, as files.
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;
};

// kOk for an admin (group system:masters, or the users system:admin and
// kube-apiserver-kubelet-client); kUnauthorized without a client identity; kForbidden with
// upstream's "Forbidden (user=..., verb=..., resource=nodes, subresource=...)".
Status authorize_kubelet_request(const http::Request& request);

class KubeletServer {
 public:
  static Result<std::unique_ptr<KubeletServer>> start(const KubeletServerOptions& options,
                                                      http::Handler handler);
  ~KubeletServer();
  KubeletServer(const KubeletServer&) = delete;
  KubeletServer& operator=(const KubeletServer&) = delete;

  uint16_t port() const;
  void stop();

 private:
  explicit KubeletServer(std::unique_ptr<http::HttpsServer> server);
  std::unique_ptr<http::HttpsServer> server_;
};

}  // namespace k3c::kubelet

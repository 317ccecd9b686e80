// The kubelet API's HTTPS server (see kubelet_server.h).
#include "roles/kubelet/server/kubelet_server.h"

#include <algorithm>

#include "http/https_server.h"
#include "pki/pki.h"
#include "http/text_response.h"
#include "runtime/files.h"

namespace k3c::kubelet {
namespace {

// The subresource of nodes upstream's kubelet authorizes a path as.
std::string subresource_of(const std::string& path) {
  for (const char* prefix : {"stats", "metrics", "logs", "spec"}) {
    const std::string p = std::string("/") + prefix;
    if (path == p || path.rfind(p + "/", 0) == 0)
      return std::string(prefix) == "logs" ? "log" : prefix;
  }
  return "proxy";
}

std::string verb_of(const std::string& method) {
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "get";
}

Result<pki::CertKey> read_ca(const std::string& dir, const std::string& name, bool with_key) {
  pki::CertKey ca;
  ASSIGN_OR_RETURN(ca.cert_pem, runtime::read_file(dir + "/" + name + ".crt", 1 << 20));
  if (with_key) {
    ASSIGN_OR_RETURN(ca.key_pem, runtime::read_file(dir + "/" + name + ".key", 1 << 20));
  }
  return ca;
}

// The serving pair and client CA: from the given files, else issued from the cluster PKI.
Result<pki::ServerPki> serving_tls(const KubeletServerOptions& options) {
  pki::ServerPki tls;
  constexpr size_t kLimit = 1 << 20;
  if (!options.cert_file.empty()) {
    ASSIGN_OR_RETURN(tls.client_ca.cert_pem, runtime::read_file(options.client_ca_file, kLimit));
    ASSIGN_OR_RETURN(tls.serving.cert_pem, runtime::read_file(options.cert_file, kLimit));
    ASSIGN_OR_RETURN(tls.serving.key_pem, runtime::read_file(options.key_file, kLimit));
    return tls;
  }
  ASSIGN_OR_RETURN(pki::CertKey server_ca, read_ca(options.tls_dir, "server-ca", true));
  ASSIGN_OR_RETURN(tls.client_ca, read_ca(options.tls_dir, "client-ca", false));
  std::vector<std::string> sans = {options.node_name, "localhost", "127.0.0.1"};
  sans.insert(sans.end(), options.node_ips.begin(), options.node_ips.end());
  ASSIGN_OR_RETURN(tls.serving, pki::issue_serving_cert(server_ca, options.node_name, sans));
  return tls;
}

}  // namespace

Status authorize_kubelet_request(const http::Request& request) {
  if (!request.peer) return error(Code::kUnauthorized, "Unauthorized");
  const http::PeerIdentity& who = *request.peer;
  const bool admin =
      std::find(who.groups.begin(), who.groups.end(), "system:masters") != who.groups.end() ||
      who.user == "system:admin" || who.user == "kube-apiserver-kubelet-client";
  if (admin) return Status::ok();
  return error(Code::kForbidden,
               "Forbidden (user=" + who.user + ", verb=" + verb_of(request.method) +
                   ", resource=nodes, subresource=" + subresource_of(request.path) + ")");
}

KubeletServer::KubeletServer(std::unique_ptr<http::HttpsServer> server)
    : server_(std::move(server)) {}

KubeletServer::~KubeletServer() { stop(); }

void KubeletServer::stop() {
  if (server_) server_->stop();
}

uint16_t KubeletServer::port() const { return server_->port(); }

Result<std::unique_ptr<KubeletServer>> KubeletServer::start(const KubeletServerOptions& options,
                                                            http::Handler handler) {
  ASSIGN_OR_RETURN(pki::ServerPki tls, serving_tls(options));
  ASSIGN_OR_RETURN(pki::SslContextPtr context, pki::make_server_context(tls));

  http::ServerOptions server;
  server.bind_address = options.address;
  server.port = options.port;
  server.worker_threads = 8;
  server.max_connections = 256;
  server.identify_peer = [](SSL* ssl) -> std::optional<http::PeerIdentity> {
    auto identity = pki::peer_identity(ssl);
    if (!identity.is_ok() || !identity->has_value()) return std::nullopt;
    return http::PeerIdentity{(*identity)->user, (*identity)->groups, {}, {}};
  };
  auto https = std::make_unique<http::HttpsServer>(
      server, context.release(), [handler = std::move(handler)](http::Request& request) {
        if (Status allowed = authorize_kubelet_request(request); !allowed.is_ok())
          return http::text_response(allowed.code() == Code::kUnauthorized ? 401 : 403,
                               allowed.message());
        return handler(request);
      });
  if (Status started = https->start(); !started.is_ok()) {
    return error(started.code(), "the kubelet API on " + options.address + ":" +
                                     std::to_string(options.port) + ": " + started.message());
  }
  return std::unique_ptr<KubeletServer>(new KubeletServer(std::move(https)));
}

}  // namespace k3c::kubelet

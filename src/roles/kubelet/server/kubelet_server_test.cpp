// The kubelet API over HTTPS on a loopback port: a serving certificate from the cluster's
// server CA, the admin's client certificate let in, a node's refused with 403 and no
// certificate with 401.
#include "roles/kubelet/server/kubelet_server.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "http/http_client.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

struct Cluster {
  TempDir dir;
  pki::ServerPki pki;
  Cluster() {
    pki::PkiOptions options;
    options.tls_dir = dir.path() + "/tls";
    auto made = pki::ensure_server_pki(options);
    REQUIRE(made.is_ok());
    pki = *made;
  }
  // A client certificate's files for fetch().
  http::ClientTls client(const pki::CertKey& cert, const std::string& name) const {
    http::ClientTls tls;
    tls.ca_pem = pki.server_ca.cert_pem;
    if (!cert.cert_pem.empty()) {
      tls.cert_file = dir.path() + "/" + name + ".crt";
      tls.key_file = dir.path() + "/" + name + ".key";
      std::ofstream(tls.cert_file) << cert.cert_pem;
      std::ofstream(tls.key_file) << cert.key_pem;
    }
    return tls;
  }
};

Result<http::ClientResponse> get(uint16_t port, const std::string& path, const http::ClientTls& tls,
                                 const std::string& host = "127.0.0.1") {
  http::ClientRequest request;
  request.url = "https://" + host + ":" + std::to_string(port) + path;
  request.tls = tls;
  request.timeout = std::chrono::seconds(10);
  return http::fetch(request);
}

KubeletServerOptions loopback(const Cluster& cluster) {
  KubeletServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  options.node_name = "node-a";
  options.tls_dir = cluster.dir.path() + "/tls";
  return options;
}

}  // namespace

TEST_CASE("who may use the kubelet API") {
  http::Request request;
  request.method = "GET";
  request.path = "/stats/summary";
  CHECK(authorize_kubelet_request(request).code() == Code::kUnauthorized);
  request.peer = http::PeerIdentity{"system:admin", {"system:masters"}, {}, {}};
  CHECK(authorize_kubelet_request(request).is_ok());
  request.peer = http::PeerIdentity{"kube-apiserver-kubelet-client", {}, {}, {}};
  CHECK(authorize_kubelet_request(request).is_ok());
  request.peer = http::PeerIdentity{"system:node:n1", {"system:nodes"}, {}, {}};
  CHECK(authorize_kubelet_request(request).message() ==
        "Forbidden (user=system:node:n1, verb=get, resource=nodes, subresource=stats)");
  request.method = "POST";
  request.path = "/exec/default/web/app";
  CHECK(authorize_kubelet_request(request).message() ==
        "Forbidden (user=system:node:n1, verb=create, resource=nodes, subresource=proxy)");
}

TEST_CASE("the kubelet API over HTTPS: serving certificate from the cluster CA, client certs") {
  Cluster cluster;
  auto server = KubeletServer::start(loopback(cluster), [](http::Request& request) {
    http::Response r;
    r.status = 200;
    r.body = "served " + request.path + " for " + request.peer->user;
    return r;
  });
  INFO(server.status().to_string());
  REQUIRE(server.is_ok());
  const uint16_t port = (*server)->port();
  REQUIRE(port != 0);

  // The admin kubeconfig's certificate (system:admin in system:masters).
  auto admin = get(port, "/healthz", cluster.client(cluster.pki.admin, "admin"));
  INFO(admin.status().to_string());
  REQUIRE(admin.is_ok());
  CHECK(admin->status == 200);
  CHECK(admin->body == "served /healthz for system:admin");
  // The certificate names localhost and the node too, verified against the server CA.
  auto by_name = get(port, "/pods", cluster.client(cluster.pki.admin, "admin"), "localhost");
  REQUIRE(by_name.is_ok());
  CHECK(by_name->status == 200);

  auto anonymous = get(port, "/healthz", cluster.client({}, "none"));
  REQUIRE(anonymous.is_ok());
  CHECK(anonymous->status == 401);
  CHECK(anonymous->body == "Unauthorized");

  auto node_cert =
      pki::issue_client_cert(cluster.pki.client_ca, {"system:node:n1", {"system:nodes"}});
  REQUIRE(node_cert.is_ok());
  auto node = get(port, "/stats/summary", cluster.client(*node_cert, "node"));
  REQUIRE(node.is_ok());
  CHECK(node->status == 403);
  CHECK(node->body ==
        "Forbidden (user=system:node:n1, verb=get, resource=nodes, subresource=stats)");

  // A certificate from another CA does not get through the handshake.
  Cluster other;
  auto stranger = get(port, "/healthz", cluster.client(other.pki.admin, "stranger"));
  CHECK((!stranger.is_ok() || stranger->status == 401));

  (*server)->stop();
  CHECK_FALSE(get(port, "/healthz", cluster.client(cluster.pki.admin, "admin")).is_ok());
}

TEST_CASE("the kubelet API's port taken: a clear start error") {
  Cluster cluster;
  KubeletServerOptions options = loopback(cluster);
  auto first = KubeletServer::start(options, [](http::Request&) { return http::Response{}; });
  REQUIRE(first.is_ok());
  options.port = (*first)->port();
  auto second = KubeletServer::start(options, [](http::Request&) { return http::Response{}; });
  REQUIRE_FALSE(second.is_ok());
  CHECK(second.status().message().find("the kubelet API on 127.0.0.1:" +
                                       std::to_string(options.port)) == 0);
  options.tls_dir = cluster.dir.path() + "/missing";
  CHECK_FALSE(
      KubeletServer::start(options, [](http::Request&) { return http::Response{}; }).is_ok());
}

}  // namespace k3c::kubelet

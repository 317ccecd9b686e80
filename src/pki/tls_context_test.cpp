// Real TLS handshakes in-process over a socketpair between make_server_context and
// make_client_context, and the identities the server reads from client certificates.
#include <openssl/err.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <thread>

#include "pki/internal/ossl.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

using internal::SslPtr;

ServerPki make_pki(const TempDir& tmp, const std::string& dir = "tls") {
  PkiOptions options;
  options.tls_dir = tmp.path() + "/" + dir;
  options.hostname = "edge-1";
  auto pki = ensure_server_pki(options);
  REQUIRE(pki.is_ok());
  return std::move(pki).value();
}

SslContextPtr context(Result<SslContextPtr> ctx) {
  INFO(ctx.status().to_string());
  REQUIRE(ctx.is_ok());
  return std::move(ctx).value();
}

struct Handshake {
  bool client_ok = false;
  bool server_ok = false;
  Result<std::optional<Identity>> identity = error(Code::kInternal, "no handshake");
  std::string alpn;  // as the client saw it
};

// Runs one handshake: the server on a thread, the client here. Each side shuts its write
// half when it is done, so a side that fails never leaves the other waiting.
Handshake handshake(SSL_CTX* server_ctx, SSL_CTX* client_ctx, const std::string& host,
                    const std::function<void(SSL*)>& tweak_client = {}) {
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  timeval timeout{10, 0};  // a broken test fails instead of hanging
  for (int fd : fds) ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);

  Handshake result;
  std::thread server([&] {
    SslPtr ssl(SSL_new(server_ctx));
    SSL_set_fd(ssl.get(), fds[0]);
    result.server_ok = SSL_accept(ssl.get()) == 1;
    if (result.server_ok) result.identity = peer_identity(ssl.get());
    ::shutdown(fds[0], SHUT_WR);
  });
  SslPtr ssl(SSL_new(client_ctx));
  SSL_set_fd(ssl.get(), fds[1]);
  REQUIRE(expect_server_name(ssl.get(), host).is_ok());
  if (tweak_client) tweak_client(ssl.get());
  result.client_ok = SSL_connect(ssl.get()) == 1;
  if (result.client_ok) {
    const unsigned char* proto = nullptr;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl.get(), &proto, &len);
    result.alpn.assign(reinterpret_cast<const char*>(proto), len);
    CHECK(SSL_version(ssl.get()) >= TLS1_2_VERSION);
  }
  ::shutdown(fds[1], SHUT_WR);
  server.join();
  ERR_clear_error();
  ::close(fds[0]);
  ::close(fds[1]);
  return result;
}

TEST_CASE("the admin client completes a handshake and the server sees system:admin") {
  TempDir tmp;
  ServerPki pki = make_pki(tmp);
  SslContextPtr server = context(make_server_context(pki));
  SslContextPtr client =
      context(make_client_context(pki.server_ca.cert_pem, pki.admin.cert_pem, pki.admin.key_pem));
  for (const char* host : {"127.0.0.1", "localhost", "::1", "kubernetes.default.svc"}) {
    INFO(host);
    Handshake h = handshake(server.get(), client.get(), host);
    REQUIRE(h.client_ok);
    REQUIRE(h.server_ok);
    CHECK(h.alpn == "http/1.1");
    REQUIRE(h.identity.is_ok());
    REQUIRE(h.identity->has_value());
    CHECK((*h.identity)->user == "system:admin");
    CHECK((*h.identity)->groups == std::vector<std::string>{"system:masters"});
  }
}

TEST_CASE("client certificates are optional; issued ones carry their identity") {
  TempDir tmp;
  ServerPki pki = make_pki(tmp);
  SslContextPtr server = context(make_server_context(pki));

  SECTION("no certificate: the handshake succeeds and there is no identity") {
    SslContextPtr client = context(make_client_context(pki.server_ca.cert_pem, "", ""));
    Handshake h = handshake(server.get(), client.get(), "127.0.0.1");
    REQUIRE(h.server_ok);
    REQUIRE(h.client_ok);
    REQUIRE(h.identity.is_ok());
    CHECK_FALSE(h.identity->has_value());
  }
  SECTION("a node certificate from issue_client_cert") {
    auto node = issue_client_cert(pki.client_ca, {"system:node:web-1", {"system:nodes"}});
    REQUIRE(node.is_ok());
    SslContextPtr client =
        context(make_client_context(pki.server_ca.cert_pem, node->cert_pem, node->key_pem));
    Handshake h = handshake(server.get(), client.get(), "localhost");
    REQUIRE(h.server_ok);
    REQUIRE(h.identity.is_ok());
    CHECK((*h.identity)->user == "system:node:web-1");
    CHECK((*h.identity)->groups == std::vector<std::string>{"system:nodes"});
  }
}

TEST_CASE("handshakes that must fail do") {
  TempDir tmp;
  ServerPki pki = make_pki(tmp);
  ServerPki other = make_pki(tmp, "other-cluster");
  SslContextPtr server = context(make_server_context(pki));

  SECTION("a client certificate from another cluster's client CA") {
    SslContextPtr client = context(
        make_client_context(pki.server_ca.cert_pem, other.admin.cert_pem, other.admin.key_pem));
    CHECK_FALSE(handshake(server.get(), client.get(), "127.0.0.1").server_ok);
  }
  SECTION("a client that trusts another cluster's CA") {
    SslContextPtr client = context(make_client_context(other.server_ca.cert_pem, "", ""));
    CHECK_FALSE(handshake(server.get(), client.get(), "127.0.0.1").client_ok);
  }
  SECTION("a server name the certificate does not carry") {
    SslContextPtr client = context(make_client_context(pki.server_ca.cert_pem, "", ""));
    CHECK_FALSE(handshake(server.get(), client.get(), "evil.example.com").client_ok);
    CHECK_FALSE(handshake(server.get(), client.get(), "10.9.9.9").client_ok);
  }
  SECTION("a client that offers only h2") {
    SslContextPtr client = context(make_client_context(pki.server_ca.cert_pem, "", ""));
    static const unsigned char kH2[] = {2, 'h', '2'};
    Handshake h = handshake(server.get(), client.get(), "127.0.0.1",
                            [](SSL* ssl) { SSL_set_alpn_protos(ssl, kH2, sizeof kH2); });
    CHECK_FALSE(h.server_ok);
    CHECK_FALSE(h.client_ok);
  }
  SECTION("a client limited to TLS 1.1") {
    SslContextPtr client = context(make_client_context(pki.server_ca.cert_pem, "", ""));
    Handshake h = handshake(server.get(), client.get(), "127.0.0.1", [](SSL* ssl) {
      SSL_set_min_proto_version(ssl, TLS1_VERSION);
      SSL_set_max_proto_version(ssl, TLS1_1_VERSION);
    });
    CHECK_FALSE(h.server_ok);
  }
}

TEST_CASE("contexts reject unusable material with clear errors") {
  TempDir tmp;
  ServerPki pki = make_pki(tmp);
  auto bad_ca = make_client_context("garbage", "", "");
  REQUIRE_FALSE(bad_ca.is_ok());
  CHECK(bad_ca.status().message().find("CA certificate") == 0);
  auto mismatched =
      make_client_context(pki.server_ca.cert_pem, pki.admin.cert_pem, pki.serving.key_pem);
  CHECK_FALSE(mismatched.is_ok());
  ServerPki broken = pki;
  broken.serving.key_pem = pki.admin.key_pem;
  CHECK_FALSE(make_server_context(broken).is_ok());
}

TEST_CASE("identity_from_certificate reads CN and every O; no CN is unauthorized") {
  TempDir tmp;
  ServerPki pki = make_pki(tmp);
  auto multi = issue_client_cert(pki.client_ca, {"jane", {"dev", "ops"}});
  REQUIRE(multi.is_ok());
  auto cert = internal::parse_cert_pem(multi->cert_pem, "test");
  REQUIRE(cert.is_ok());
  auto identity = identity_from_certificate(cert->get());
  REQUIRE(identity.is_ok());
  CHECK(identity->user == "jane");
  CHECK(identity->groups == std::vector<std::string>{"dev", "ops"});

  internal::X509Ptr empty(X509_new());
  CHECK(identity_from_certificate(empty.get()).status().code() == Code::kUnauthorized);
  CHECK(identity_from_certificate(nullptr).status().code() == Code::kUnauthorized);
}

}  // namespace
}  // namespace k3c::pki

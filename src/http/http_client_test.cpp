// Tests of the blocking HTTP client against fake plain-TCP peers (garbage, hangs, redirects)
// and the project's HTTPS server with a throwaway CA made by the openssl tool.
#include "http/http_client.h"
#include "http/http_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "fake_tcp_server.h"
#include "http/https_server.h"
#include "run_command.h"
#include "temp_dir.h"

namespace k3c::http {
namespace {

using namespace std::chrono_literals;
using testing::FakeTcpServer;

std::string ok_answer(const std::string& body, const std::string& extra = "") {
  return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra +
         "\r\n" + body;
}

std::string local(uint16_t port, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(port) + path;
}

TEST_CASE("URLs parse into scheme, host, port and target") {
  auto u = parse_url("https://Registry-1.docker.io/v2/library/busybox/manifests/latest");
  REQUIRE(u.is_ok());
  CHECK(u->scheme == "https");
  CHECK(u->port == 443);
  CHECK(u->target == "/v2/library/busybox/manifests/latest");
  CHECK(u->authority() == "Registry-1.docker.io");
  auto v6 = parse_url("http://[::1]:5000?x=1");
  REQUIRE(v6.is_ok());
  CHECK(v6->host == "::1");
  CHECK(v6->target == "/?x=1");
  CHECK(v6->authority() == "[::1]:5000");
  CHECK_FALSE(parse_url("ftp://x/").is_ok());
  CHECK_FALSE(parse_url("http://x:99999/").is_ok());
  CHECK_FALSE(parse_url("http://user@x/").is_ok());
  CHECK_FALSE(parse_url("x/y").is_ok());
  auto base = *parse_url("http://a:1/v2/x/blobs/sha256:1");
  CHECK(resolve_url(base, "/other")->to_string() == "http://a:1/other");
  CHECK(resolve_url(base, "//b/c")->to_string() == "http://b/c");
  CHECK(resolve_url(base, "https://s3/x?sig=1")->to_string() == "https://s3/x?sig=1");
  CHECK(resolve_url(base, "y")->to_string() == "http://a:1/v2/x/blobs/y");
}

TEST_CASE("a plain HTTP answer comes back with status, headers and body") {
  std::string seen;
  FakeTcpServer server([&](const std::string& request) {
    seen = request;
    return ok_answer("hello", "Docker-Content-Digest: sha256:abc\r\n");
  });
  ClientRequest req;
  req.url = local(server.port(), "/v2/?q=1");
  req.headers = {{"Accept", "application/json"}};
  auto r = fetch(req);
  REQUIRE(r.is_ok());
  CHECK(r->status == 200);
  CHECK(r->body == "hello");
  CHECK(r->header("docker-content-digest") == "sha256:abc");
  CHECK(seen.starts_with("GET /v2/?q=1 HTTP/1.1\r\n"));
  CHECK(seen.find("Accept: application/json\r\n") != std::string::npos);
  CHECK(seen.find("Host: 127.0.0.1:" + std::to_string(server.port())) != std::string::npos);
}

TEST_CASE("bodies stream to the sink, and over-limit bodies in memory are refused") {
  const std::string big(300000, 'x');
  FakeTcpServer server([&](const std::string&) { return ok_answer(big); });
  ClientRequest req;
  req.url = local(server.port(), "/blob");
  std::string collected;
  int pieces = 0;
  req.sink = [&](std::string_view piece) {
    collected.append(piece);
    ++pieces;
    return Status::ok();
  };
  auto r = fetch(req);
  REQUIRE(r.is_ok());
  CHECK(r->body.empty());
  CHECK(collected == big);
  CHECK(pieces > 1);

  req.sink = nullptr;
  req.body_limit = 1000;
  auto limited = fetch(req);
  REQUIRE_FALSE(limited.is_ok());
  CHECK(limited.status().code() == Code::kRequestEntityTooLarge);

  req.sink = [](std::string_view) { return error(Code::kInvalid, "sink says no"); };
  auto refused = fetch(req);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message() == "sink says no");
}

TEST_CASE("redirects are followed, dropping Authorization when the host changes") {
  std::string at_storage;
  FakeTcpServer storage([&](const std::string& request) {
    at_storage = request;
    return ok_answer("layer");
  });
  std::string at_origin;
  FakeTcpServer origin([&](const std::string& request) -> std::optional<std::string> {
    at_origin = request;
    return "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://localhost:" +
           std::to_string(storage.port()) + "/signed?x=1\r\nContent-Length: 0\r\n\r\n";
  });
  ClientRequest req;
  req.url = local(origin.port(), "/v2/a/blobs/sha256:1");
  req.headers = {{"Authorization", "Bearer secret"}};
  auto r = fetch(req);
  REQUIRE(r.is_ok());
  CHECK(r->status == 200);
  CHECK(r->body == "layer");
  CHECK(r->final_url == "http://localhost:" + std::to_string(storage.port()) + "/signed?x=1");
  CHECK(at_origin.find("Authorization: Bearer secret") != std::string::npos);
  CHECK(at_storage.find("Authorization") == std::string::npos);

  req.max_redirects = 0;
  auto unfollowed = fetch(req);
  REQUIRE(unfollowed.is_ok());
  CHECK(unfollowed->status == 307);
}

TEST_CASE("a redirect loop ends with an error") {
  FakeTcpServer loop([](const std::string&) -> std::optional<std::string> {
    return "HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n";
  });
  ClientRequest req;
  req.url = local(loop.port(), "/");
  req.max_redirects = 3;
  auto r = fetch(req);
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message().find("stopped after 3 redirects") != std::string::npos);
}

TEST_CASE("garbage, hangs and refused connections are clear errors within the deadline") {
  FakeTcpServer garbage(
      [](const std::string&) -> std::optional<std::string> { return "SSH-2.0-OpenSSH\r\n\r\n"; });
  ClientRequest req;
  req.url = local(garbage.port(), "/v2/");
  auto g = fetch(req);
  REQUIRE_FALSE(g.is_ok());
  CHECK(g.status().code() == Code::kInvalid);
  CHECK(g.status().message().find("malformed HTTP answer") != std::string::npos);

  FakeTcpServer hang([](const std::string&) -> std::optional<std::string> { return std::nullopt; });
  req.url = local(hang.port(), "/v2/");
  req.timeout = 700ms;
  const auto started = std::chrono::steady_clock::now();
  auto h = fetch(req);
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(h.is_ok());
  CHECK(h.status().code() == Code::kTimeout);
  CHECK(h.status().message().find("deadline exceeded") != std::string::npos);
  CHECK(took < 3s);

  req.timeout = 10s;
  req.idle_timeout = 300ms;
  auto idle = fetch(req);
  REQUIRE_FALSE(idle.is_ok());
  CHECK(idle.status().code() == Code::kTimeout);
  CHECK(idle.status().message().find("no data for 300ms") != std::string::npos);

  uint16_t closed_port;
  {
    closed_port = FakeTcpServer([](const std::string&) { return std::string(); }).port();
  }
  req.url = local(closed_port, "/");
  auto refused = fetch(req);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().code() == Code::kServiceUnavailable);
}

struct TestCa {
  TempDir dir;
  std::string ca = dir.path() + "/ca.crt";
  std::string cert = dir.path() + "/tls.crt";
  std::string key = dir.path() + "/tls.key";
  TestCa() {
    const std::string ca_key = dir.path() + "/ca.key";
    REQUIRE(run_command({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                         "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key, "-out", ca,
                         "-subj", "/CN=test-ca", "-days", "1"})
                .exit_code == 0);
    const std::string csr = dir.path() + "/tls.csr";
    REQUIRE(run_command({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                         "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"})
                .exit_code == 0);
    const std::string ext = dir.path() + "/ext";
    REQUIRE(run_command({"sh", "-c", "echo subjectAltName=IP:127.0.0.1 > " + ext}).exit_code == 0);
    REQUIRE(run_command({"openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
                         "-CAcreateserial", "-out", cert, "-days", "1", "-extfile", ext})
                .exit_code == 0);
  }
  SSL_CTX* context(bool require_client_cert = false) const {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    REQUIRE(SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) == 1);
    if (require_client_cert) {
      REQUIRE(SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) == 1);
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    return ctx;
  }
  // A client certificate (CN=client) signed by the CA; returns {cert, key}.
  std::pair<std::string, std::string> client_cert() const {
    const std::string c = dir.path() + "/client.crt", k = dir.path() + "/client.key";
    const std::string csr = dir.path() + "/client.csr";
    REQUIRE(run_command({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                         "-nodes", "-keyout", k, "-out", csr, "-subj", "/CN=client"})
                .exit_code == 0);
    REQUIRE(run_command({"openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey",
                         dir.path() + "/ca.key", "-CAcreateserial", "-out", c, "-days", "1"})
                .exit_code == 0);
    return {c, k};
  }
};

TEST_CASE("HTTPS verifies the server against the given CA and refuses an unknown one") {
  TestCa ca;
  ServerOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  HttpsServer server(o, ca.context(), [](Request& r) {
    Response resp;
    resp.body = "secure " + r.path;
    return resp;
  });
  REQUIRE(server.start().is_ok());
  ClientRequest req;
  req.url = "https://127.0.0.1:" + std::to_string(server.port()) + "/x";
  req.tls.ca_file = ca.ca;
  auto r = fetch(req);
  REQUIRE(r.is_ok());
  CHECK(r->body == "secure /x");

  req.tls.ca_file.clear();  // the system CAs do not know the test CA
  auto unknown = fetch(req);
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message().find("x509:") != std::string::npos);

  req.tls.insecure_skip_verify = true;
  CHECK(fetch(req).is_ok());

  req.tls = {};
  req.tls.ca_file = ca.ca;
  req.url = "https://localhost:" + std::to_string(server.port()) + "/x";  // not in the SANs
  auto wrong_name = fetch(req);
  REQUIRE_FALSE(wrong_name.is_ok());
  CHECK(wrong_name.status().message().find("x509:") != std::string::npos);
  server.stop();
}

TEST_CASE("a client certificate is presented when the server asks for one") {
  TestCa ca;
  ServerOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  o.identify_peer = [](SSL* ssl) -> std::optional<PeerIdentity> {
    X509* peer = SSL_get1_peer_certificate(ssl);
    if (peer == nullptr) return std::nullopt;
    char cn[64] = {};
    X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
    X509_free(peer);
    return PeerIdentity{cn, {}, "", {}};
  };
  HttpsServer server(o, ca.context(/*require_client_cert=*/true), [](Request& r) {
    Response resp;
    resp.body = r.peer ? "hello " + r.peer->user : "anonymous";
    return resp;
  });
  REQUIRE(server.start().is_ok());
  ClientRequest req;
  req.url = "https://127.0.0.1:" + std::to_string(server.port()) + "/";
  req.tls.ca_file = ca.ca;
  req.timeout = 5s;
  CHECK_FALSE(fetch(req).is_ok());  // the server refuses a handshake without a certificate
  auto [cert, key] = ca.client_cert();
  req.tls.cert_file = cert;
  req.tls.key_file = key;
  auto r = fetch(req);
  INFO(r.status().message());
  REQUIRE(r.is_ok());
  CHECK(r->body == "hello client");
  req.tls.key_file.clear();
  CHECK(fetch(req).status().message() ==
        "a client certificate needs both a certificate and a key file");
  server.stop();
}

// A body of two lines, then the end (a watch in miniature).
class TwoLines final : public BodyStream {
 public:
  void set_wake(std::function<void()> wake) override { wake(); }
  Chunk poll() override {
    Chunk c;
    c.append(std::string("one\ntwo\n"));
    c.ended = true;
    return c;
  }
  void cancel() override {}
};

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("a kept-alive connection carries several requests and a streamed answer") {
  TestCa ca;
  ServerOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  o.identify_peer = [](SSL* ssl) -> std::optional<PeerIdentity> {
    X509* peer = SSL_get1_peer_certificate(ssl);
    if (peer == nullptr) return std::nullopt;
    X509_free(peer);
    return PeerIdentity{"client", {}, "", {}};
  };
  HttpsServer server(o, ca.context(/*require_client_cert=*/true), [](Request& r) {
    Response resp;
    if (r.path == "/stream") {
      resp.stream = std::make_shared<TwoLines>();
    } else {
      resp.body = r.method + " " + r.path + " " + r.body + (r.peer ? " as " + r.peer->user : "");
    }
    return resp;
  });
  REQUIRE(server.start().is_ok());
  auto [cert, key] = ca.client_cert();
  ClientTls tls;
  tls.ca_file = ca.ca;
  tls.cert_pem = file_text(cert);  // as a kubeconfig's client-certificate-data gives it
  tls.key_pem = file_text(key);
  auto context = ClientTlsContext::make(tls);
  REQUIRE(context.is_ok());
  auto url = parse_url("https://127.0.0.1:" + std::to_string(server.port()));
  REQUIRE(url.is_ok());
  auto conn = Connection::open(*url, *context, 5s);
  REQUIRE(conn.is_ok());
  for (const char* body : {"first", "second"}) {
    auto r = (*conn)->exchange({"PUT", "/x", {}, body}, 5s, 1 << 20);
    INFO(r.status().message());
    REQUIRE(r.is_ok());
    CHECK(r->body == std::string("PUT /x ") + body + " as client");
    CHECK((*conn)->reusable());
  }
  auto small = (*conn)->exchange({"GET", "/big", {}, ""}, 5s, 4);
  CHECK(small.status().code() == Code::kRequestEntityTooLarge);
  CHECK_FALSE((*conn)->reusable());

  auto watch = Connection::open(*url, *context, 5s);
  REQUIRE(watch.is_ok());
  auto head = (*watch)->start_stream({"GET", "/stream", {}, ""}, 5s);
  REQUIRE(head.is_ok());
  CHECK(head->status == 200);
  std::string got;
  for (int i = 0; i < 50 && !(*watch)->stream_ended(); ++i) {
    auto bytes = (*watch)->read_stream(100ms);
    REQUIRE(bytes.is_ok());
    got += *bytes;
  }
  CHECK(got == "one\ntwo\n");
  (*watch)->cancel();
  CHECK_FALSE((*watch)->read_stream(10ms).is_ok());
  server.stop();
}

}  // namespace
}  // namespace k3c::http

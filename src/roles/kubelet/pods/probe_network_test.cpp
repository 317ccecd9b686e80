// The socket prober against a real loopback listener: tcp connects, HTTP status decides,
// a closed port is refused.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;

// A listening socket on a free loopback port.
int listen_on_loopback(int& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(listen(fd, 4) == 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

// A loopback listener on a free port that answers each connection with `reply`.
struct Listener {
  int fd = -1;
  int port = 0;
  std::thread thread;
  explicit Listener(std::string reply, int connections) {
    fd = listen_on_loopback(port);
    thread = std::thread([this, reply, connections] {
      for (int i = 0; i < connections; ++i) {
        int c = accept(fd, nullptr, nullptr);
        if (c < 0) return;
        char buf[1024];
        (void)!recv(c, buf, sizeof buf, 0);  // the request (or nothing, for tcp)
        (void)!send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        close(c);
      }
    });
  }
  ~Listener() {
    shutdown(fd, SHUT_RDWR);
    close(fd);
    thread.join();
  }
};

// A loopback TLS listener with a throw-away self-signed certificate, answering each
// connection with `reply`.
struct TlsListener {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  int fd = -1, port = 0;
  std::thread thread;
  explicit TlsListener(std::string reply) {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("probe-test"), -1, -1, 0);
    X509_set_issuer_name(cert, X509_get_subject_name(cert));
    X509_sign(cert, key, EVP_sha256());
    SSL_CTX_use_certificate(ctx, cert);
    SSL_CTX_use_PrivateKey(ctx, key);
    X509_free(cert);
    EVP_PKEY_free(key);
    fd = listen_on_loopback(port);
    thread = std::thread([this, reply] {
      int c = accept(fd, nullptr, nullptr);
      if (c < 0) return;
      SSL* ssl = SSL_new(ctx);
      SSL_set_fd(ssl, c);
      if (SSL_accept(ssl) == 1) {
        char buf[1024];
        (void)SSL_read(ssl, buf, sizeof buf);
        (void)SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
        SSL_shutdown(ssl);
      }
      SSL_free(ssl);
      close(c);
    });
  }
  ~TlsListener() {
    shutdown(fd, SHUT_RDWR);
    close(fd);
    thread.join();
    SSL_CTX_free(ctx);
  }
};

TEST_CASE("https probes skip verification, as upstream") {
  SocketProbeNetwork net;
  {
    TlsListener ok("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    auto r = net.http_get("HTTPS", "127.0.0.1", ok.port, "/", nlohmann::json::array(), 2s);
    CHECK(r.success);
    CHECK(r.output.empty());
  }
  {
    TlsListener bad("HTTP/1.1 500 Internal Server Error\r\n\r\n");
    auto r = net.http_get("HTTPS", "127.0.0.1", bad.port, "/x", nlohmann::json::array(), 2s);
    CHECK_FALSE(r.success);
    CHECK(r.output == "HTTP probe failed with statuscode: 500");
  }
  // HTTPS against a plain HTTP server: the handshake fails and says so.
  Listener plain("HTTP/1.1 200 OK\r\n\r\n", 1);
  auto r = net.http_get("HTTPS", "127.0.0.1", plain.port, "/", nlohmann::json::array(), 2s);
  CHECK_FALSE(r.success);
  CHECK(r.output.find("Get \"https://127.0.0.1:" + std::to_string(plain.port) +
                      "/\": tls handshake: ") == 0);
}

TEST_CASE("tcp and http probes over loopback") {
  SocketProbeNetwork net;
  {
    Listener ok("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n", 2);
    CHECK(net.http_get("HTTP", "127.0.0.1", ok.port, "/healthz", nlohmann::json::array(), 1s)
              .success);
    CHECK(net.tcp("127.0.0.1", ok.port, 1s).success);
  }
  {
    Listener bad("HTTP/1.1 503 Service Unavailable\r\n\r\n", 1);
    auto r = net.http_get("HTTP", "127.0.0.1", bad.port, "/", nlohmann::json::array(), 1s);
    CHECK_FALSE(r.success);
    CHECK(r.output == "HTTP probe failed with statuscode: 503");
  }
  // A port nobody listens on (the listener above is closed).
  int closed;
  {
    Listener gone("", 0);
    closed = gone.port;
  }
  auto refused = net.tcp("127.0.0.1", closed, 1s);
  CHECK_FALSE(refused.success);
  CHECK(refused.output.find("connection refused") != std::string::npos);
  CHECK_FALSE(net.http_get("HTTPS", "127.0.0.1", closed, "/", nlohmann::json::array(), 1s).success);
}

}  // namespace
}  // namespace k3c::kubelet

// Socket tcpSocket and httpGet probes (see probes.h), HTTP or HTTPS (TLS without
// verification, as upstream). IPv4 and IPv6 literals or names resolved with getaddrinfo;
// every step bounded by the probe's timeout.
#include <arpa/inet.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "roles/kubelet/pods/probe_socket.h"
#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet {

namespace probe_socket {

int remaining_ms(Deadline deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

int connect_to(const ProbeTarget& target, int port, Deadline deadline, std::string& why) {
  if (target.dial) return target.dial(port, why);
  const std::string& host = target.host;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    why = "dial tcp " + host + ":" + std::to_string(port) + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = poll(&p, 1, remaining_ms(deadline)) == 1 ? 0 : -1;
      int err = rc == 0 ? 0 : ETIMEDOUT;
      socklen_t len = sizeof err;
      if (rc == 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        errno = err;
        rc = -1;
      }
    }
    if (rc != 0) {
      std::string text = std::strerror(errno);
      if (!text.empty()) text[0] = static_cast<char>(std::tolower(text[0]));  // Go's wording
      why = "dial tcp " + host + ":" + std::to_string(port) + ": connect: " + text;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace probe_socket

using probe_socket::connect_to;
using probe_socket::Deadline;
using probe_socket::remaining_ms;

ProbeOutcome SocketProbeNetwork::tcp(const ProbeTarget& target, int port,
                                     std::chrono::milliseconds timeout) {
  std::string why;
  int fd = connect_to(target, port, std::chrono::steady_clock::now() + timeout, why);
  if (fd < 0) return {false, why};
  close(fd);
  return {true, ""};
}

namespace {

// One probe connection: plain, or TLS without verifying the server (upstream's HTTPS probes
// skip verification: InsecureSkipVerify). Every step waits at most until the deadline.
class ProbeConnection {
 public:
  ProbeConnection(int fd, Deadline deadline) : fd_(fd), deadline_(deadline) {}
  ~ProbeConnection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
    close(fd_);
  }
  ProbeConnection(const ProbeConnection&) = delete;
  ProbeConnection& operator=(const ProbeConnection&) = delete;

  // The TLS handshake; false with `why` set.
  bool start_tls(const std::string& host, std::string& why) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    if (ctx_ == nullptr) return fail_tls("creating a TLS context", why);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
    SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);  // Go's client default
    ssl_ = SSL_new(ctx_);
    if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1)
      return fail_tls("creating a TLS session", why);
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET, host.c_str(), &v4) != 1 && inet_pton(AF_INET6, host.c_str(), &v6) != 1)
      SSL_set_tlsext_host_name(ssl_, host.c_str());  // SNI for names only, as Go
    if (tls_step([&] { return SSL_connect(ssl_); }) <= 0) return fail_tls("tls handshake", why);
    return true;
  }
  bool send_all(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const char* data = bytes.data() + sent;
      const size_t left = bytes.size() - sent;
      ssize_t n = 0;
      if (ssl_ != nullptr) {
        n = tls_step([&] { return SSL_write(ssl_, data, static_cast<int>(left)); });
      } else {
        pollfd p{fd_, POLLOUT, 0};
        if (poll(&p, 1, remaining_ms(deadline_)) != 1) return false;
        n = send(fd_, data, left, MSG_NOSIGNAL);
      }
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  // Some bytes (> 0), or <= 0 at the end, on an error or at the deadline.
  ssize_t receive(char* buf, size_t size) {
    if (ssl_ != nullptr)
      return tls_step([&] { return SSL_read(ssl_, buf, static_cast<int>(size)); });
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, remaining_ms(deadline_)) != 1) return -1;
    return recv(fd_, buf, size, 0);
  }

 private:
  // Runs an OpenSSL call on the non-blocking socket, polling for what it wants, until it
  // succeeds, fails or the deadline passes.
  template <typename F>
  int tls_step(F call) {
    for (;;) {
      const int r = call();
      if (r > 0) return r;
      const int err = SSL_get_error(ssl_, r);
      short events = 0;
      if (err == SSL_ERROR_WANT_READ) events = POLLIN;
      if (err == SSL_ERROR_WANT_WRITE) events = POLLOUT;
      if (events == 0) return r;
      pollfd p{fd_, events, 0};
      if (poll(&p, 1, remaining_ms(deadline_)) != 1) return -1;
    }
  }
  bool fail_tls(const char* what, std::string& why) {
    const unsigned long e = ERR_get_error();
    char text[256] = "timeout or connection closed";
    if (e != 0) ERR_error_string_n(e, text, sizeof text);
    ERR_clear_error();
    why = std::string(what) + ": " + text;
    return false;
  }

  int fd_;
  Deadline deadline_;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

}  // namespace

ProbeOutcome SocketProbeNetwork::http_get(const std::string& scheme, const ProbeTarget& target,
                                          int port, const std::string& path,
                                          const nlohmann::json& headers,
                                          std::chrono::milliseconds timeout) {
  const std::string& host = target.host;
  const bool tls = scheme == "HTTPS";
  const std::string url =
      std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(port) + path;
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  std::string why;
  int fd = connect_to(target, port, deadline, why);
  if (fd < 0) return {false, "Get \"" + url + "\": " + why};
  ProbeConnection connection(fd, deadline);
  if (tls && !connection.start_tls(host, why)) return {false, "Get \"" + url + "\": " + why};
  std::string request = "GET " + (path.empty() ? "/" : path) + " HTTP/1.1\r\nHost: " + host + ":" +
                        std::to_string(port) + "\r\nUser-Agent: kube-probe/1.32\r\nAccept: */*\r\n";
  if (headers.is_array()) {
    for (const auto& h : headers)
      request += h.value("name", "") + ": " + h.value("value", "") + "\r\n";
  }
  request += "Connection: close\r\n\r\n";
  std::string response;
  if (connection.send_all(request)) {
    while (response.find("\r\n") == std::string::npos && response.size() < 4096) {
      char buf[1024];
      const ssize_t n = connection.receive(buf, sizeof buf);
      if (n <= 0) break;
      response.append(buf, static_cast<size_t>(n));
    }
  }
  // "HTTP/1.1 200 OK"
  const auto space = response.find(' ');
  if (response.rfind("HTTP/", 0) != 0 || space == std::string::npos) {
    return {false, "Get \"" + url + "\": no HTTP response before the timeout"};
  }
  const int code = std::atoi(response.c_str() + space + 1);
  if (code >= 200 && code < 400) return {true, "", code};
  return {false, "HTTP probe failed with statuscode: " + std::to_string(code), code};
}

}  // namespace k3c::kubelet

// A blocking TLS client connection for tests of switched protocols (WebSocket, SPDY): it
// sends an HTTP request, reads the answer's head, and then is an http::Duplex over the rest
// of the byte stream. Certificates are not verified (test servers on loopback).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "http/duplex.h"

namespace k3c::testing {

class TlsClientDuplex final : public http::Duplex {
 public:
  // Connects to 127.0.0.1:`port`; check ok() afterwards.
  explicit TlsClientDuplex(uint16_t port) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    ok_ = SSL_connect(ssl_) == 1;
  }
  ~TlsClientDuplex() override {
    if (ssl_) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
    SSL_CTX_free(ctx_);
  }
  bool ok() const { return ok_; }

  // Writes `request` and returns the answer's head (through the blank line); bytes after it
  // stay for read_some().
  std::string request(const std::string& request) {
    if (!write_all(request).is_ok()) return "";
    std::string head;
    char c;
    while (head.find("\r\n\r\n") == std::string::npos) {
      int n = SSL_read(ssl_, &c, 1);
      if (n <= 0) break;
      head.push_back(c);
    }
    return head;
  }

  Result<size_t> read_some(char* buffer, size_t max, std::chrono::milliseconds timeout) override {
    if (closed_) return error(Code::kServiceUnavailable, "closed");
    if (SSL_pending(ssl_) == 0) {
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(timeout.count()));
      if (r == 0) return error(Code::kTimeout, "timeout");
    }
    int n = SSL_read(ssl_, buffer, static_cast<int>(max));
    if (n > 0) return static_cast<size_t>(n);
    int e = SSL_get_error(ssl_, n);
    if (e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SYSCALL) return size_t{0};
    return error(Code::kServiceUnavailable, "TLS read failed");
  }
  Status write_all(std::string_view bytes) override {
    while (!bytes.empty()) {
      int n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
      if (n <= 0) return error(Code::kServiceUnavailable, "TLS write failed");
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return Status::ok();
  }
  void close() override {
    if (!closed_) shutdown(fd_, SHUT_RDWR);
    closed_ = true;
  }

 private:
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool ok_ = false;
  bool closed_ = false;
};

// Reads until `n` bytes have come (or EOF, an error or `timeout` between reads).
inline std::string read_bytes(http::Duplex& d, size_t n,
                              std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  std::string got;
  char buf[4096];
  while (got.size() < n) {
    auto r = d.read_some(buf, std::min(sizeof buf, n - got.size()), timeout);
    if (!r.is_ok() || *r == 0) break;
    got.append(buf, *r);
  }
  return got;
}

}  // namespace k3c::testing

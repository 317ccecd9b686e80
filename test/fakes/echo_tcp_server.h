// A TCP echo server on 127.0.0.1 (a free port) for port-forward tests: every connection gets
// back what it sends, prefixed once with `greeting`; the server half-closes when the client
// does. connections() counts those accepted; open() those not yet ended.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace k3c::testing {

class EchoTcpServer {
 public:
  explicit EchoTcpServer(std::string greeting = "") : greeting_(std::move(greeting)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(fd_, 16);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~EchoTcpServer() {
    stop_ = true;
    thread_.join();
    std::lock_guard lock(mu_);
    for (auto& t : workers_) t.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }
  int connections() const { return accepted_; }
  int open() const { return open_; }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ++accepted_;
      ++open_;
      std::lock_guard lock(mu_);
      workers_.emplace_back([this, c] { serve(c); });
    }
  }
  void serve(int c) {
    if (!greeting_.empty()) (void)!::send(c, greeting_.data(), greeting_.size(), MSG_NOSIGNAL);
    char buf[16384];
    while (!stop_) {
      pollfd p{c, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) break;
      (void)!::send(c, buf, static_cast<size_t>(n), MSG_NOSIGNAL);
    }
    ::shutdown(c, SHUT_WR);
    ::close(c);
    --open_;
  }

  std::string greeting_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0}, open_{0};
  std::mutex mu_;  // guards workers_
  std::vector<std::thread> workers_;
  std::thread thread_;
};

// A non-blocking TCP connection to 127.0.0.1:`port`, or -1.
inline int connect_loopback(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

}  // namespace k3c::testing

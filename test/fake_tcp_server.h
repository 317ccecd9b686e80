// A tiny plain-TCP server on 127.0.0.1 (a free port) for tests of clients: each connection's
// request head (up to the blank line, plus a Content-Length body) goes to `answer`, whose
// bytes are written back before the connection is closed. An answer of std::nullopt holds
// the connection open without a word until the server stops (a hung peer).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace k3c::testing {

class FakeTcpServer {
 public:
  using Answer = std::function<std::optional<std::string>(const std::string& request)>;

  explicit FakeTcpServer(Answer answer) : answer_(std::move(answer)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(fd_, 16) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("fake server: cannot listen");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~FakeTcpServer() {
    stop_ = true;
    thread_.join();
    for (int c : held_) close(c);
    close(fd_);
  }
  uint16_t port() const { return port_; }
  int connections() const { return connections_; }

 private:
  void loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      ++connections_;
      std::string request = read_request(c);
      std::optional<std::string> reply = answer_(request);
      if (!reply) {
        held_.push_back(c);
        continue;
      }
      size_t done = 0;
      while (done < reply->size()) {
        const ssize_t n = send(c, reply->data() + done, reply->size() - done, MSG_NOSIGNAL);
        if (n <= 0) break;
        done += static_cast<size_t>(n);
      }
      shutdown(c, SHUT_WR);
      char sink[4096];
      pollfd q{c, POLLIN, 0};
      while (poll(&q, 1, 200) > 0 && recv(c, sink, sizeof sink, 0) > 0) {
      }
      close(c);
    }
  }
  std::string read_request(int c) {
    std::string in;
    char buf[4096];
    for (;;) {
      pollfd p{c, POLLIN, 0};
      if (poll(&p, 1, 2000) <= 0) return in;
      const ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n <= 0) return in;
      in.append(buf, static_cast<size_t>(n));
      const size_t end = in.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      size_t length = 0;
      if (size_t at = in.find("Content-Length: "); at != std::string::npos && at < end) {
        length = std::stoul(in.substr(at + 16));
      }
      if (in.size() >= end + 4 + length) return in;
    }
  }

  Answer answer_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::vector<int> held_;
  std::thread thread_;
};

}  // namespace k3c::testing

// NotifyListener: a bound AF_UNIX datagram socket standing in for systemd's notification
// socket ($NOTIFY_SOCKET) in tests. Header-only; throws when it cannot bind.
#pragma once

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

namespace k3c {

class NotifyListener {
 public:
  // `name` is a path, or an abstract name written with a leading '@'.
  explicit NotifyListener(const std::string& name) : name_(name) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    if (fd_ < 0 || name.empty() || name.size() >= sizeof addr.sun_path) {
      throw std::runtime_error("NotifyListener: bad socket or name " + name);
    }
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, name.data(), name.size());
    if (name[0] == '@') addr.sun_path[0] = '\0';
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      close(fd_);
      throw std::runtime_error("NotifyListener: cannot bind " + name);
    }
  }
  // Closes the socket and removes a path socket's file, so the name can be bound again.
  ~NotifyListener() {
    close(fd_);
    if (name_[0] != '@') unlink(name_.c_str());
  }
  NotifyListener(const NotifyListener&) = delete;
  NotifyListener& operator=(const NotifyListener&) = delete;

  // The next datagram, or "" when none arrives within `timeout`.
  std::string receive(std::chrono::milliseconds timeout = std::chrono::seconds(2)) {
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
  }

 private:
  std::string name_;
  int fd_ = -1;
};

}  // namespace k3c

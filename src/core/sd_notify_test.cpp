// Tests for sd_notify against real AF_UNIX datagram sockets the test binds.
#include "core/sd_notify.h"

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <string>

#include "temp_dir.h"

namespace k3c {
namespace {

// A bound datagram socket standing in for systemd's notification socket.
class Listener {
 public:
  // `name` is a path, or an abstract name written with a leading '@'.
  explicit Listener(const std::string& name) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, name.data(), name.size());
    if (name[0] == '@') addr.sun_path[0] = '\0';
    auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    timeval timeout{2, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~Listener() { close(fd_); }

  // The next datagram, or "" after 2 s without one.
  std::string receive() {
    char buf[512];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
  }

 private:
  int fd_ = -1;
};

TEST_CASE("sd_notify sends the state to a socket path") {
  TempDir dir;
  const std::string path = dir.path() + "/notify.sock";
  Listener listener(path);
  REQUIRE(sd_notify(path, "READY=1").is_ok());
  CHECK(listener.receive() == "READY=1");
  REQUIRE(sd_notify(path, "STOPPING=1").is_ok());
  CHECK(listener.receive() == "STOPPING=1");
}

TEST_CASE("sd_notify reaches an abstract socket named with '@'") {
  std::random_device random;
  const std::string name = "@k3c-sd-notify-test-" + std::to_string(getpid()) + "-" +
                           std::to_string(random());
  Listener listener(name);
  REQUIRE(sd_notify(name, "READY=1").is_ok());
  CHECK(listener.receive() == "READY=1");
}

TEST_CASE("sd_notify fails rather than blocks when nobody reads") {
  TempDir dir;
  const std::string path = dir.path() + "/notify.sock";
  Listener listener(path);  // never reads: its queue fills up
  Status status;
  for (int i = 0; i < 100000 && status.is_ok(); ++i) status = sd_notify(path, "STATUS=x");
  CHECK(status.code() == Code::kServiceUnavailable);
}

TEST_CASE("sd_notify without a socket does nothing") {
  CHECK(sd_notify("", "READY=1").is_ok());
}

TEST_CASE("sd_notify reports bad or unreachable sockets") {
  TempDir dir;
  CHECK(sd_notify("relative/notify.sock", "READY=1").code() == Code::kInvalid);
  CHECK(sd_notify("/" + std::string(200, 'x'), "READY=1").code() == Code::kInvalid);
  Status missing = sd_notify(dir.path() + "/nobody-listens.sock", "READY=1");
  CHECK(missing.code() == Code::kServiceUnavailable);
  CHECK_THAT(missing.message(), Catch::Contains("nobody-listens.sock"));
}

}  // namespace
}  // namespace k3c

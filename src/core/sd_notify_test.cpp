// Tests for sd_notify against real AF_UNIX datagram sockets the test binds.
#include "core/sd_notify.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "notify_listener.h"
#include "temp_dir.h"

namespace k3c {
namespace {

TEST_CASE("sd_notify sends the state to a socket path") {
  TempDir dir;
  const std::string path = dir.path() + "/notify.sock";
  NotifyListener listener(path);
  REQUIRE(sd_notify(path, "READY=1").is_ok());
  CHECK(listener.receive() == "READY=1");
  REQUIRE(sd_notify(path, "STOPPING=1").is_ok());
  CHECK(listener.receive() == "STOPPING=1");
}

TEST_CASE("sd_notify reaches an abstract socket named with '@'") {
  std::random_device random;
  const std::string name =
      "@k3c-sd-notify-test-" + std::to_string(getpid()) + "-" + std::to_string(random());
  NotifyListener listener(name);
  REQUIRE(sd_notify(name, "READY=1").is_ok());
  CHECK(listener.receive() == "READY=1");
}

TEST_CASE("sd_notify fails rather than blocks when nobody reads") {
  TempDir dir;
  const std::string path = dir.path() + "/notify.sock";
  NotifyListener listener(path);  // never reads: its queue fills up
  Status status;
  for (int i = 0; i < 100000 && status.is_ok(); ++i) status = sd_notify(path, "STATUS=x");
  CHECK(status.code() == Code::kServiceUnavailable);
}

TEST_CASE("sd_notify without a socket does nothing") { CHECK(sd_notify("", "READY=1").is_ok()); }

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

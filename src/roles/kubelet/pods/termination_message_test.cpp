// Termination messages: the file behind the instance's terminationMessagePath mount (capped
// at 4096 bytes), the log tail for FallbackToLogsOnError on a failure, nothing otherwise.
#include "roles/kubelet/pods/termination_message.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

TEST_CASE("termination messages: the container's file, or the log's end on a failure") {
  TempDir dir;
  const std::string file = dir.path() + "/0.termination-log";
  const std::string log = dir.path() + "/0.log";
  runtime::ContainerStatus c;
  c.state = runtime::ContainerState::kExited;
  c.exit_code = 1;
  c.log_path = log;
  c.mounts = {{file, "/dev/termination-log", false, false}};
  json container = {{"name", "app"}};
  std::ofstream(file) << "";
  {
    std::ofstream out(log);
    for (int i = 0; i < 100; ++i)
      out << "2026-12-04T00:00:00.000000000Z stdout F line " << i << "\n";
    out << "2026-12-04T00:00:00.000000000Z stderr P par\n"
        << "2026-12-04T00:00:00.000000000Z stderr F tial\n";
  }
  // File policy (the default): the file only, empty here.
  CHECK(termination_message(container, c).empty());
  // FallbackToLogsOnError: the last 80 lines (partial records joined).
  container["terminationMessagePolicy"] = "FallbackToLogsOnError";
  const std::string tail = termination_message(container, c);
  CHECK(tail.rfind("line 21\n", 0) == 0);
  CHECK(tail.ends_with("line 99\npartial\n"));
  // ... but not for a success, nor when the file says something.
  c.exit_code = 0;
  CHECK(termination_message(container, c).empty());
  c.exit_code = 1;
  std::ofstream(file) << "disk full";
  CHECK(termination_message(container, c) == "disk full");
  // At most 4096 bytes; a custom path is found through its mount.
  std::ofstream(file) << std::string(5000, 'x');
  CHECK(termination_message(container, c).size() == 4096);
  container["terminationMessagePath"] = "/tmp/why";
  CHECK(termination_message(container, c) == tail);  // no mount there: the log, as a fallback
  c.mounts[0].container_path = "/tmp/why";
  CHECK(termination_message(container, c).size() == 4096);
  // A log far larger than what is read of its end gives the same tail.
  {
    std::ofstream out(log);
    for (int i = 0; i < 5000; ++i)
      out << "2026-12-04T00:00:00.000000000Z stdout F line " << i << "\n";
  }
  c.mounts[0].container_path = "/elsewhere";
  const std::string big = termination_message(container, c);
  CHECK(big.size() == 80 * 10);  // 80 lines of "line 49xx\n"
  CHECK(big.ends_with("line 4998\nline 4999\n"));
  CHECK(big.find("line 4920\n") != std::string::npos);  // the 80th line from the end
  CHECK(big.find("line 4919\n") == std::string::npos);
  // A running container has none yet.
  c.state = runtime::ContainerState::kRunning;
  CHECK(termination_message(container, c).empty());
}

}  // namespace
}  // namespace k3c::kubelet

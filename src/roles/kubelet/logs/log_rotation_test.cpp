// Log rotation over real files in a temporary directory and the fake runtime's containers.
#include "roles/kubelet/logs/log_rotation.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "roles/kubelet/pods/testing/fake_runtime.h"
#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct RotationNode {
  TempDir logs;
  ManualClock clock;
  testing::FakeRuntime runtime{clock};
  LogRotator rotator{runtime, clock, LogRotationPolicy{100, 3}};

  // A running container whose log is <logs>/app/0.log.
  std::string run() {
    runtime::SandboxConfig sandbox;
    sandbox.pod_uid = "u1";
    sandbox.log_directory = logs.path();
    auto sb = runtime.run_pod_sandbox(sandbox);
    REQUIRE(sb.is_ok());
    runtime::ContainerConfig c;
    c.name = "app";
    c.args = {"/bin/app"};
    c.log_path = "app/0.log";
    auto id = runtime.create_container(*sb, c);
    REQUIRE(id.is_ok());
    REQUIRE(runtime.start_container(*id).is_ok());
    fs::create_directories(logs.path() + "/app");
    return *id;
  }
  std::string log() const { return logs.path() + "/app/0.log"; }
  void write(size_t bytes) { std::ofstream(log(), std::ios::app) << std::string(bytes, 'x'); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(logs.path() + "/app"))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_CASE("a log over the size limit is renamed with upstream's timestamp") {
  RotationNode node;
  const std::string id = node.run();
  node.write(100);
  CHECK(node.rotator.rotate_once().empty());  // at the limit, not over it
  node.write(1);
  CHECK(node.rotator.rotate_once() == std::vector<std::string>{node.log()});
  const auto files = node.files();
  REQUIRE(files.size() == 1);
  // ManualClock's wall time: 2023-11-14T22:13:20Z.
  CHECK(files[0] == "0.log.20231114-221320");
  CHECK_FALSE(fs::exists(node.log()));
  // The shim is asked to start the new file.
  const auto calls = node.runtime.calls();
  CHECK(std::find(calls.begin(), calls.end(), "reopen_container_log " + id) != calls.end());
}

TEST_CASE("at most max-files files are kept per container, oldest rotated ones go first") {
  RotationNode node;
  node.run();
  for (int i = 0; i < 4; ++i) {
    node.write(101);
    REQUIRE(node.rotator.rotate_once().size() == 1);
    node.clock.advance(1s);
  }
  node.write(1);  // the live file again
  // max-files 3: the live file and two rotated ones (one of them the newest).
  CHECK(node.files() ==
        std::vector<std::string>{"0.log", "0.log.20231114-221322", "0.log.20231114-221323"});
}

TEST_CASE("only running containers' logs are rotated") {
  RotationNode node;
  const std::string id = node.run();
  node.write(500);
  REQUIRE(node.runtime.stop_container(id, 0s).is_ok());
  CHECK(node.rotator.rotate_once().empty());
  CHECK(node.files() == std::vector<std::string>{"0.log"});
}

}  // namespace
}  // namespace k3c::kubelet

// LinuxRuntime for real (root): sandboxes as pinned namespaces, containers from an imported
// busybox-static image, in cgroups under a test-only parent. Runs in k3c_shim_test, whose
// main() moves the binary into its own mount and network namespaces and serves as the shim.
#include "runtime/linux_runtime.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "images/test_images.h"
#include "runtime/cgroups/cgroup_manager.h"
#include "runtime/linux_runtime_test_support.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

using namespace std::chrono_literals;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A runtime over a temporary data dir with the busybox image imported, and a cgroup parent
// of its own that is removed at the end, also when the test fails.
struct Fixture {
  TempDir dir;
  std::string cgroup_parent = "k3c-test-" + std::to_string(getpid());
  std::unique_ptr<LinuxRuntime> runtime;

  Fixture() { runtime = runtime_with_busybox(dir.path()); }
  ~Fixture() {
    if (auto sandboxes = runtime->list_pod_sandboxes(); sandboxes.is_ok())
      for (const SandboxStatus& s : *sandboxes) (void)runtime->remove_pod_sandbox(s.id);
    reap_orphans();
    if (auto cgroups = CgroupManager::detect(); cgroups.is_ok())
      (void)(*cgroups)->remove(cgroup_parent);
  }

  SandboxConfig sandbox(const std::string& uid) const {
    SandboxConfig config;
    config.pod_uid = uid;
    config.pod_name = "pod-a";
    config.pod_namespace = "default";
    config.hostname = "pod-a";
    config.hosts = "127.0.0.1\tlocalhost\n";
    config.resolv_conf = "nameserver 10.43.0.10\n";
    config.cgroup_parent = cgroup_parent + "/pod" + uid;
    config.log_directory = dir.path() + "/logs/default_pod-a_" + uid;
    return config;
  }

  ContainerStatus wait_exited(const std::string& id, std::chrono::seconds limit = 15s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      auto status = runtime->container_status(id);
      REQUIRE(status.is_ok());
      reap_orphans();
      if (status->state == ContainerState::kExited || std::chrono::steady_clock::now() > deadline)
        return *status;
      std::this_thread::sleep_for(20ms);
    }
  }
};

ContainerConfig container(std::string name, std::vector<std::string> args) {
  ContainerConfig config;
  config.name = std::move(name);
  config.image = "busybox:test";
  config.args = std::move(args);
  config.log_path = config.name + "/0.log";
  return config;
}

TEST_CASE("a pod sandbox runs containers with its hostname, files, user and logs") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Fixture f;
  auto sandbox = f.runtime->run_pod_sandbox(f.sandbox("u1"));
  REQUIRE(sandbox.is_ok());
  auto status = f.runtime->pod_sandbox_status(*sandbox);
  REQUIRE(status.is_ok());
  CHECK(status->state == SandboxState::kReady);
  CHECK_FALSE(status->netns_path.empty());

  ContainerConfig config =
      container("main", {"sh", "-c",
                         "echo hello; echo oops >&2; hostname; id -u; cat /etc/resolv.conf; "
                         "echo $HOSTNAME; exit 3"});
  config.security.run_as_user = 1000;
  auto id = f.runtime->create_container(*sandbox, config);
  REQUIRE(id.is_ok());
  CHECK(f.runtime->container_status(*id)->state == ContainerState::kCreated);
  REQUIRE(f.runtime->start_container(*id).is_ok());
  ContainerStatus done = f.wait_exited(*id);
  CHECK(done.state == ContainerState::kExited);
  CHECK(done.exit_code == 3);
  CHECK(done.reason == "Error");
  CHECK(done.image_ref.rfind("sha256:", 0) == 0);
  const std::string log = slurp(done.log_path);
  CHECK(done.log_path == f.dir.path() + "/logs/default_pod-a_u1/main/0.log");
  CHECK(log.find(" stdout F hello\n") != std::string::npos);
  CHECK(log.find(" stderr F oops\n") != std::string::npos);
  CHECK(log.find(" stdout F pod-a\n") != std::string::npos);
  CHECK(log.find(" stdout F 1000\n") != std::string::npos);
  CHECK(log.find(" stdout F nameserver 10.43.0.10\n") != std::string::npos);

  // A second start of the same container is refused; a completed one reports Completed.
  CHECK_FALSE(f.runtime->start_container(*id).is_ok());
  auto ok = f.runtime->create_container(*sandbox, container("ok", {"true"}));
  REQUIRE(ok.is_ok());
  REQUIRE(f.runtime->start_container(*ok).is_ok());
  CHECK(f.wait_exited(*ok).reason == "Completed");

  REQUIRE(f.runtime->remove_pod_sandbox(*sandbox).is_ok());
  CHECK_FALSE(f.runtime->container_status(*id).is_ok());
  CHECK(slurp("/proc/self/mountinfo").find(f.dir.path()) == std::string::npos);
}

TEST_CASE("exec, stats, stop with the grace period, start errors, images in use") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Fixture f;
  auto sandbox = f.runtime->run_pod_sandbox(f.sandbox("u2"));
  REQUIRE(sandbox.is_ok());
  auto sleeper = f.runtime->create_container(*sandbox, container("sleeper", {"sleep", "1000"}));
  REQUIRE(sleeper.is_ok());
  REQUIRE(f.runtime->start_container(*sleeper).is_ok());
  CHECK(f.runtime->container_status(*sleeper)->state == ContainerState::kRunning);

  auto exec = f.runtime->exec_sync(*sleeper, {"sh", "-c", "cat /etc/hosts; exit 4"}, 5s);
  REQUIRE(exec.is_ok());
  CHECK(exec->exit_code == 4);
  CHECK(exec->stdout_bytes == "127.0.0.1\tlocalhost\n");
  auto stats = f.runtime->container_stats(*sleeper);
  REQUIRE(stats.is_ok());
  CHECK(stats->memory_usage_bytes > 0);

  // `sleep` as PID 1 ignores SIGTERM: the grace period runs out and SIGKILL ends it.
  const auto before = std::chrono::steady_clock::now();
  REQUIRE(f.runtime->stop_container(*sleeper, 1s).is_ok());
  CHECK(std::chrono::steady_clock::now() - before >= 1s);
  ContainerStatus stopped = f.wait_exited(*sleeper);
  CHECK(stopped.exit_code == 137);
  CHECK(stopped.reason == "Error");

  auto missing = f.runtime->create_container(*sandbox, container("missing", {"/nope"}));
  REQUIRE(missing.is_ok());
  Status start = f.runtime->start_container(*missing);
  REQUIRE_FALSE(start.is_ok());
  CHECK(start.message().find("/nope") != std::string::npos);
  ContainerStatus failed = *f.runtime->container_status(*missing);
  CHECK(failed.state == ContainerState::kExited);
  CHECK(failed.reason == "StartError");
  CHECK(failed.exit_code == 128);

  CHECK(f.runtime->remove_image("busybox:test").code() == Code::kConflict);
  REQUIRE(f.runtime->remove_pod_sandbox(*sandbox).is_ok());
  CHECK(f.runtime->remove_image("busybox:test").is_ok());
}

TEST_CASE("a container over its memory limit is OOMKilled with exit code 137") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Fixture f;
  auto sandbox = f.runtime->run_pod_sandbox(f.sandbox("u3"));
  REQUIRE(sandbox.is_ok());
  ContainerConfig hog =
      container("hog", {"sh", "-c", "dd if=/dev/zero of=/dev/null bs=64M count=1"});
  hog.resources.memory_limit_bytes = 16 << 20;
  auto id = f.runtime->create_container(*sandbox, hog);
  REQUIRE(id.is_ok());
  REQUIRE(f.runtime->start_container(*id).is_ok());
  ContainerStatus done = f.wait_exited(*id);
  CHECK(done.state == ContainerState::kExited);
  CHECK(done.exit_code == 137);
  CHECK(done.reason == "OOMKilled");
}

}  // namespace
}  // namespace k3c::runtime

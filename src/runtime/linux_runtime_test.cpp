// LinuxRuntime for real (root): sandboxes as pinned namespaces, containers from an imported
// busybox-static image, in cgroups under a test-only parent. Runs in k3c_shim_test, whose
// main() moves the binary into its own mount and network namespaces and serves as the shim.
#include "runtime/linux_runtime.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "images/test_images.h"
#include "runtime/cgroups/cgroup_manager.h"
#include "runtime/linux_runtime_test_support.h"
#include "runtime/shim/pause_process.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

using namespace std::chrono_literals;

std::string runtime_slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A runtime over a temporary data dir with the busybox image imported, and a cgroup parent
// of its own that is removed at the end, also when the test fails.
struct RuntimeFixture {
  TempDir dir;
  std::string cgroup_parent = "k3c-test-" + std::to_string(getpid());
  std::unique_ptr<LinuxRuntime> runtime;

  RuntimeFixture() { runtime = runtime_with_busybox(dir.path()); }
  ~RuntimeFixture() {
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

  // A sandbox with shareProcessNamespace: its id, directory and pause pid.
  struct Shared {
    std::string id, dir;
    int pause = 0;
  };
  Shared shared_sandbox(const std::string& uid) {
    SandboxConfig config = sandbox(uid);
    config.share_process_namespace = true;
    auto id = runtime->run_pod_sandbox(config);
    INFO(id.status().to_string());
    REQUIRE(id.is_ok());
    Shared made{*id, sandbox_dir(*id), 0};
    made.pause = running_pause(made.dir);
    REQUIRE(made.pause > 0);
    return made;
  }
  std::string sandbox_dir(const std::string& id) const {
    return dir.path() + "/data/agent/runtime/sandboxes/" + id;
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

std::string slurp_link(const std::string& path) {
  char target[256];
  const ssize_t n = readlink(path.c_str(), target, sizeof target);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

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
  RuntimeFixture f;
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
  const std::string log = runtime_slurp(done.log_path);
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
  CHECK(runtime_slurp("/proc/self/mountinfo").find(f.dir.path()) == std::string::npos);
}

TEST_CASE("exec, stats, stop with the grace period, start errors, images in use") {
  REQUIRE_ROOT_AND_BUSYBOX();
  RuntimeFixture f;
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

TEST_CASE("a Localhost seccomp profile is read at creation and confines the container and execs") {
  REQUIRE_ROOT_AND_BUSYBOX();
  RuntimeFixture f;
  auto sandbox = f.runtime->run_pod_sandbox(f.sandbox("u6"));
  REQUIRE(sandbox.is_ok());
  const std::string path = f.dir.path() + "/no-mkdir.json";
  {
    std::ofstream(path) << R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
        {"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13}]})";
  }
  ContainerConfig config = container("confined", {"sh", "-c", "mkdir /made; exec sleep 1000"});
  config.security.seccomp = SeccompProfile::kLocalhost;
  config.security.seccomp_localhost_path = path;
  auto confined = f.runtime->create_container(*sandbox, config);
  REQUIRE(confined.is_ok());
  // The text was read at creation: a later change of the file does not reach this container.
  { std::ofstream(path) << R"({"defaultAction": "SCMP_ACT_ALLOW"})"; }
  REQUIRE(f.runtime->start_container(*confined).is_ok());
  auto exec = f.runtime->exec_sync(
      *confined, {"sh", "-c", "grep Seccomp: /proc/self/status; mkdir /tmp/x 2>&1; ls /made 2>&1"},
      5s);
  REQUIRE(exec.is_ok());
  INFO(exec->stdout_bytes);
  CHECK(exec->stdout_bytes.find("Seccomp:\t2") != std::string::npos);
  CHECK(exec->stdout_bytes.find("Permission denied") != std::string::npos);          // EACCES
  CHECK(exec->stdout_bytes.find("No such file or directory") != std::string::npos);  // no /made

  // A missing file or one that does not compile fails the creation, as containerd's.
  config.security.seccomp_localhost_path = f.dir.path() + "/missing.json";
  auto missing = f.runtime->create_container(*sandbox, config);
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message().rfind(
            "failed to generate seccomp spec opts: cannot load seccomp profile", 0) == 0);
  { std::ofstream(path) << R"({"defaultAction": "SCMP_ACT_SOMETIMES"})"; }
  config.security.seccomp_localhost_path = path;
  auto bad = f.runtime->create_container(*sandbox, config);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() ==
        "failed to generate seccomp spec opts: seccomp profile: "
        "unknown action \"SCMP_ACT_SOMETIMES\"");
  REQUIRE(f.runtime->remove_pod_sandbox(*sandbox).is_ok());
}

TEST_CASE("a container over its memory limit is OOMKilled with exit code 137") {
  REQUIRE_ROOT_AND_BUSYBOX();
  RuntimeFixture f;
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

TEST_CASE("/sys/fs/cgroup shows the container its own cgroup, read-only unless privileged") {
  REQUIRE_ROOT_AND_BUSYBOX();
  RuntimeFixture f;
  auto cgroups = CgroupManager::detect();
  REQUIRE(cgroups.is_ok());
  const bool v2 = (*cgroups)->unified();
  auto sandbox = f.runtime->run_pod_sandbox(f.sandbox("u8"));
  REQUIRE(sandbox.is_ok());
  // The limit as the container reads it, then a write to a file of its own cgroup.
  const std::string probe =
      "cat /proc/self/cgroup; ls /sys/fs/cgroup; "
      "if [ -d /sys/fs/cgroup/memory ]; then d=/sys/fs/cgroup/memory; "
      "echo limit=$(cat $d/memory.limit_in_bytes); f=$d/memory.soft_limit_in_bytes; "
      "else echo limit=$(cat /sys/fs/cgroup/memory.max); f=/sys/fs/cgroup/memory.high; fi; "
      "if echo 60000000 > $f; then echo wrote; else echo refused; fi; "
      "if mkdir /sys/fs/cgroup/x 2>/dev/null; then echo made; else echo unmade; fi";
  const auto run = [&](const std::string& name, bool privileged) {
    ContainerConfig config = container(name, {"sh", "-c", probe});
    config.resources.memory_limit_bytes = 64 << 20;
    config.security.privileged = privileged;
    auto id = f.runtime->create_container(*sandbox, config);
    REQUIRE(id.is_ok());
    const Status started = f.runtime->start_container(*id);
    INFO(started.to_string());
    REQUIRE(started.is_ok());
    ContainerStatus done = f.wait_exited(*id);
    CHECK(done.exit_code == 0);
    return runtime_slurp(done.log_path);
  };
  const auto has = [](const std::string& log, const std::string& line) {
    INFO(log);
    CHECK(log.find(" stdout F " + line + "\n") != std::string::npos);
  };
  const std::string plain = run("plain", false);
  has(plain, "limit=67108864");
  has(plain, "refused");
  has(plain, "unmade");
  if (v2) {
    has(plain, "0::/");  // its own cgroup namespace
  } else {
    // The host's cgroup namespace: its path under the pod's parent, and per hierarchy its
    // own directory.
    INFO(plain);
    CHECK(plain.find(":memory:/" + f.cgroup_parent + "/podu8/") != std::string::npos);
    has(plain, "memory");
    has(plain, "cpu");
    CHECK(plain.find(" stdout F unified\n") == std::string::npos);
  }
  const std::string privileged = run("privileged", true);
  has(privileged, "limit=67108864");
  has(privileged, "wrote");
}

// The line of /proc/<pid>/status that starts with `key`.
std::string status_line(int pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line;
  return {};
}

TEST_CASE("shareProcessNamespace: the pause is PID 1 of the namespace the containers share") {
  REQUIRE_ROOT_AND_BUSYBOX();
  RuntimeFixture f;
  const auto [id, dir, pause] = f.shared_sandbox("u4");
  const std::string* sandbox = &id;
  CHECK(status_line(pause, "NSpid:") == "NSpid:\t" + std::to_string(pause) + "\t1");
  CHECK(status_line(pause, "CapEff:") == "CapEff:\t0000000000000000");
  CHECK(status_line(pause, "CapBnd:") == "CapBnd:\t0000000000000000");
  CHECK(status_line(pause, "NoNewPrivs:") == "NoNewPrivs:\t1");
  CHECK(f.runtime->pod_sandbox_status(*sandbox)->state == SandboxState::kReady);
  // Its PSS, for doc/runtime.md (the shim's is about 1.3 MB).
  const std::string rollup = runtime_slurp("/proc/" + std::to_string(pause) + "/smaps_rollup");
  if (const size_t at = rollup.find("\nPss:"); at != std::string::npos)
    WARN("pause process " << rollup.substr(at + 1, rollup.find('\n', at + 1) - at - 1));

  auto web = f.runtime->create_container(*sandbox, container("web", {"sleep", "1000"}));
  auto side = f.runtime->create_container(*sandbox, container("side", {"sleep", "1001"}));
  REQUIRE((web.is_ok() && side.is_ok()));
  REQUIRE(f.runtime->start_container(*web).is_ok());
  REQUIRE(f.runtime->start_container(*side).is_ok());
  auto seen = f.runtime->exec_sync(*side, {"sh", "-c", "cat /proc/1/comm; ps"}, 5s);
  REQUIRE(seen.is_ok());
  INFO(seen->stdout_bytes << seen->stderr_bytes);
  CHECK(seen->stdout_bytes.rfind("pause\n", 0) == 0);
  CHECK(seen->stdout_bytes.find("sleep 1000") != std::string::npos);
  CHECK(seen->stdout_bytes.find("sleep 1001") != std::string::npos);
  // The pause's root is an empty directory, not the host's.
  auto root = f.runtime->exec_sync(*web, {"ls", "/proc/1/root/"}, 5s);
  REQUIRE(root.is_ok());
  CHECK(root->stdout_bytes.empty());
  // An orphan of the namespace is the pause's to reap: no zombie stays.
  REQUIRE(f.runtime->exec_sync(*web, {"sh", "-c", "sleep 0.2 &"}, 5s).is_ok());
  std::this_thread::sleep_for(700ms);
  auto stats = f.runtime->exec_sync(*web, {"sh", "-c", "cat /proc/[0-9]*/stat"}, 5s);
  REQUIRE(stats.is_ok());
  CHECK(stats->stdout_bytes.find(") Z ") == std::string::npos);

  // A new runtime over the same state adopts the pause of a live sandbox...
  auto again = LinuxRuntime::open({f.dir.path() + "/data", "", "/sys/fs/cgroup", nullptr});
  REQUIRE(again.is_ok());
  CHECK(running_pause(dir) == pause);
  // ...and a killed pause ends the namespace: the sandbox is NotReady, its containers exited.
  REQUIRE(kill(pause, SIGKILL) == 0);
  CHECK(f.wait_exited(*web).exit_code == 137);
  reap_orphans();
  CHECK(running_pause(dir) == 0);
  CHECK(f.runtime->pod_sandbox_status(*sandbox)->state == SandboxState::kNotReady);
  REQUIRE(f.runtime->remove_pod_sandbox(*sandbox).is_ok());
  CHECK(runtime_slurp("/proc/self/mountinfo").find(f.dir.path()) == std::string::npos);
}

TEST_CASE("the pause process: a session of its own, exits 0 on SIGTERM and on SIGINT") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TempDir dir;
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string sandbox = dir.path() + "/" + std::to_string(sig);
    std::filesystem::create_directories(sandbox);
    auto pid = start_pause(sandbox);
    INFO(pid.status().to_string());
    REQUIRE(pid.is_ok());
    CHECK(getsid(*pid) == *pid);
    CHECK(runtime_slurp("/proc/" + std::to_string(*pid) + "/comm") == "pause\n");
    REQUIRE(kill(*pid, sig) == 0);
    int status = -1;
    REQUIRE(waitpid(*pid, &status, 0) == *pid);  // this test binary is its subreaper
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(running_pause(sandbox) == 0);
    CHECK(stop_pause(sandbox).is_ok());
    CHECK_FALSE(std::filesystem::exists(sandbox + "/pause"));
  }
}

TEST_CASE("a pause whose sandbox was stopped or is gone is stopped when the runtime opens") {
  REQUIRE_ROOT_AND_BUSYBOX();
  RuntimeFixture f;
  const auto [id, dir, pause] = f.shared_sandbox("u5");
  const std::string* sandbox = &id;
  // As if k3c died in the middle of removing it: the record is gone, the pause is not.
  REQUIRE(std::rename((dir + "/sandbox.json").c_str(), (dir + "/sandbox.json.away").c_str()) == 0);
  auto again = LinuxRuntime::open({f.dir.path() + "/data", "", "/sys/fs/cgroup", nullptr});
  REQUIRE(again.is_ok());
  reap_orphans();
  CHECK(running_pause(dir) == 0);
  CHECK(kill(pause, 0) != 0);
  REQUIRE(std::rename((dir + "/sandbox.json.away").c_str(), (dir + "/sandbox.json").c_str()) == 0);
  REQUIRE(f.runtime->remove_pod_sandbox(*sandbox).is_ok());

  // hostPID wins over shareProcessNamespace: no pause, the host's namespace.
  SandboxConfig config = f.sandbox("u6");
  config.share_process_namespace = true;
  config.host_pid = true;
  auto host = f.runtime->run_pod_sandbox(config);
  REQUIRE(host.is_ok());
  CHECK(running_pause(f.sandbox_dir(*host)) == 0);
  auto c = f.runtime->create_container(*host, container("c", {"sleep", "1000"}));
  REQUIRE(c.is_ok());
  REQUIRE(f.runtime->start_container(*c).is_ok());
  auto pid1 = f.runtime->exec_sync(*c, {"busybox", "readlink", "/proc/self/ns/pid"}, 5s);
  INFO(pid1.status().to_string());
  REQUIRE(pid1.is_ok());
  CHECK(pid1->stdout_bytes == slurp_link("/proc/self/ns/pid") + "\n");
}

}  // namespace
}  // namespace k3c::runtime

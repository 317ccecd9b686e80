// LinuxRuntime's streaming calls for real (root): exec sessions (pipes, a terminal,
// cancel), port_forward into a sandbox's network namespace, attach to a container's main
// process. Runs in k3c_shim_test (own mount and network namespaces, the binary is the shim).
#include <dirent.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "images/test_images.h"
#include "runtime/cgroups/cgroup_manager.h"
#include "runtime/linux_runtime.h"
#include "eventually.h"
#include "runtime/linux_runtime_test_support.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

using namespace std::chrono_literals;

// A runtime with the busybox image and one sandbox; everything removed at the end.
struct Pod {
  TempDir dir;
  std::string cgroup_parent = "k3c-streams-test-" + std::to_string(getpid());
  std::unique_ptr<LinuxRuntime> runtime;
  std::string sandbox;

  explicit Pod(bool host_network = false) {
    runtime = runtime_with_busybox(dir.path());
    SandboxConfig config;
    config.pod_uid = "uid-streams";
    config.pod_name = "streams";
    config.pod_namespace = "default";
    config.hostname = "streams";
    config.host_network = host_network;
    config.cgroup_parent = cgroup_parent + "/pod-streams";
    config.log_directory = dir.path() + "/logs";
    auto id = runtime->run_pod_sandbox(config);
    REQUIRE(id.is_ok());
    sandbox = *id;
  }
  ~Pod() {
    (void)runtime->remove_pod_sandbox(sandbox);
    reap_orphans();
    if (auto cgroups = CgroupManager::detect(); cgroups.is_ok())
      (void)(*cgroups)->remove(cgroup_parent);
  }
  std::string start(const std::string& name, std::vector<std::string> args, bool stdin = false,
                    bool stdin_once = false, bool tty = false) {
    ContainerConfig config;
    config.name = name;
    config.image = "busybox:test";
    config.args = std::move(args);
    config.log_path = name + "/0.log";
    config.stdin = stdin;
    config.stdin_once = stdin_once;
    config.tty = tty;
    auto id = runtime->create_container(sandbox, config);
    REQUIRE(id.is_ok());
    auto started = runtime->start_container(*id);
    INFO(started.to_string());
    REQUIRE(started.is_ok());
    return *id;
  }
};

// Reads `fd` (non-blocking) until `want` shows up (empty: until end of file), at most 10 s.
std::string read_until(int fd, const std::string& want = "") {
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!want.empty() && got.find(want) != std::string::npos) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EAGAIN) continue;
    if (n <= 0) break;  // end of file, or EIO from a terminal whose other side is gone
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

void write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EAGAIN) {
      std::this_thread::sleep_for(1ms);
      continue;
    }
    REQUIRE(n > 0);
    done += static_cast<size_t>(n);
  }
}

size_t open_fds() {
  size_t count = 0;
  DIR* dir = opendir("/proc/self/fd");
  while (readdir(dir) != nullptr) ++count;
  closedir(dir);
  return count;
}

// Host pids whose command line holds `marker` (this test runs in the host pid namespace).
std::vector<int> processes_with(const std::string& marker) {
  std::vector<int> pids;
  DIR* dir = opendir("/proc");
  while (dirent* e = readdir(dir)) {
    const int pid = atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/cmdline");
    std::stringstream s;
    s << in.rdbuf();
    if (s.str().find(marker) != std::string::npos) pids.push_back(pid);
  }
  closedir(dir);
  return pids;
}

// Children of this process that are zombies (nobody reaped them).
int zombie_children() {
  int zombies = 0;
  DIR* tasks = opendir("/proc/self/task");
  while (dirent* t = readdir(tasks)) {
    if (t->d_name[0] == '.') continue;
    std::ifstream in("/proc/self/task/" + std::string(t->d_name) + "/children");
    for (int pid; in >> pid;) {
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string line;
      std::getline(stat, line);
      const size_t paren = line.rfind(')');
      if (paren != std::string::npos && line.size() > paren + 2 && line[paren + 2] == 'Z')
        ++zombies;
    }
  }
  closedir(tasks);
  return zombies;
}

std::string slurp_log(const Pod& pod, const std::string& name) {
  std::ifstream in(pod.dir.path() + "/logs/" + name + "/0.log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A port-forward connection to `port` of the pod's sandbox once something listens there
// (tried for 5 s), a GET of /index.html through it: the answer.
std::string get_through_port_forward(Pod& pod, uint16_t port) {
  Result<int> conn = error(Code::kInternal, "not tried");
  for (int i = 0; i < 100; ++i) {  // httpd listens shortly after its start
    conn = pod.runtime->port_forward(pod.sandbox, port);
    if (conn.is_ok()) break;
    std::this_thread::sleep_for(50ms);
  }
  INFO(conn.status().to_string());
  REQUIRE(conn.is_ok());
  write_all(*conn, "GET /index.html HTTP/1.0\r\n\r\n");
  const std::string answer = read_until(*conn);
  close(*conn);
  return answer;
}

// Brings up loopback in this test binary's own network namespace (shim_test_main.cpp made
// it; it starts with lo down), for a hostNetwork pod's listener.
std::string readlink_ns(const char* path) {
  char buf[128] = {};
  const ssize_t n = readlink(path, buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool loopback_up() {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq request{};
  std::snprintf(request.ifr_name, sizeof request.ifr_name, "lo");
  bool ok = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &request) == 0;
  request.ifr_flags |= IFF_UP;
  ok = ok && ioctl(fd, SIOCSIFFLAGS, &request) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

}  // namespace

TEST_CASE("exec sessions: stdin echoed back, stderr apart, exit codes, no fd or zombie left") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id = pod.start("main", {"sleep", "1000"});
  reap_orphans();
  const size_t fds_before = open_fds();
  {
    auto session = pod.runtime->exec(id, {"cat"}, {true, true, true, false});
    INFO(session.status().to_string());
    REQUIRE(session.is_ok());
    StreamSession& s = **session;
    REQUIRE(s.stdin_fd() >= 0);
    REQUIRE(s.stderr_fd() >= 0);
    write_all(s.stdin_fd(), "hello through cat\n");
    CHECK(read_until(s.stdout_fd(), "\n") == "hello through cat\n");
    write_all(s.stdin_fd(), "second line\n");
    s.close_stdin();
    CHECK(s.stdin_fd() == -1);
    CHECK(read_until(s.stdout_fd()) == "second line\n");
    auto code = s.wait();
    REQUIRE(code.is_ok());
    CHECK(*code == 0);
    CHECK(s.resize(80, 24).code() == Code::kInvalid);  // no terminal
  }
  {
    auto session = pod.runtime->exec(id, {"sh", "-c", "echo out; echo err >&2; exit 7"},
                                     {false, true, true, false});
    REQUIRE(session.is_ok());
    CHECK((*session)->stdin_fd() == -1);
    CHECK(read_until((*session)->stdout_fd()) == "out\n");
    CHECK(read_until((*session)->stderr_fd()) == "err\n");
    auto code = (*session)->wait();
    REQUIRE(code.is_ok());
    CHECK(*code == 7);
  }
  CHECK(open_fds() == fds_before);
  CHECK(zombie_children() == 0);

  auto missing = pod.runtime->exec(id, {"nosuch"}, {});
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message() == "exec: \"nosuch\": executable file not found in $PATH");
  CHECK(pod.runtime->exec("nope", {"true"}, {}).status().code() == Code::kNotFound);
  CHECK(open_fds() == fds_before);
}

TEST_CASE("an exec session with a terminal: /dev/pts inside the container, resize, TERM") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id = pod.start("main", {"sleep", "1000"});
  auto session = pod.runtime->exec(
      id, {"sh", "-c", "busybox tty; read go; busybox stty size; echo TERM=$TERM; exit 3"},
      {true, true, false, true});
  INFO(session.status().to_string());
  REQUIRE(session.is_ok());
  StreamSession& s = **session;
  CHECK(s.stderr_fd() == -1);
  REQUIRE(s.stdin_fd() >= 0);
  std::string out = read_until(s.stdout_fd(), "\n");
  CHECK(std::regex_search(out, std::regex(R"(^/dev/pts/\d+\r\n)")));
  REQUIRE(s.resize(123, 45).is_ok());
  write_all(s.stdin_fd(), "go\n");
  out += read_until(s.stdout_fd());
  INFO(out);
  CHECK(out.find("45 123\r\n") != std::string::npos);
  CHECK(out.find("TERM=xterm\r\n") != std::string::npos);
  auto code = s.wait();
  REQUIRE(code.is_ok());
  CHECK(*code == 3);

  // The end of stdin is the terminal's end-of-file: cat ends.
  auto cat = pod.runtime->exec(id, {"cat"}, {true, true, false, true});
  REQUIRE(cat.is_ok());
  write_all((*cat)->stdin_fd(), "typed\n");
  CHECK(read_until((*cat)->stdout_fd(), "typed\r\ntyped\r\n") == "typed\r\ntyped\r\n");
  (*cat)->close_stdin();
  read_until((*cat)->stdout_fd());
  auto cat_code = (*cat)->wait();
  REQUIRE(cat_code.is_ok());
  CHECK(*cat_code == 0);
}

TEST_CASE("cancel kills the exec'd process and what it started; wait reports the cancel") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id = pod.start("main", {"sleep", "1000"});
  // busybox's sh may run the background `sleep` applet in its forked child, which keeps the
  // shell's command line: both carry the marker.
  const std::string marker = "7654321";
  auto session = pod.runtime->exec(id, {"sh", "-c", "sleep 7654321 & echo started; wait"},
                                   {false, true, true, false});
  REQUIRE(session.is_ok());
  REQUIRE(read_until((*session)->stdout_fd(), "started\n") == "started\n");
  // The shell and its background job. Polled: while the job is inside execve, its
  // /proc/<pid>/cmdline reads empty for a moment.
  CHECK(k3c::testing::eventually([&] { return processes_with(marker).size() >= 2; }));
  std::thread waiter([&] {
    auto code = (*session)->wait();
    CHECK(code.status().code() == Code::kServiceUnavailable);
  });
  std::this_thread::sleep_for(100ms);
  (*session)->cancel();
  waiter.join();
  (*session)->cancel();  // idempotent
  for (int i = 0; i < 100 && !processes_with(marker).empty(); ++i)
    std::this_thread::sleep_for(20ms);
  CHECK(processes_with(marker).empty());
  session->reset();
  CHECK(zombie_children() == 0);
  // The container itself runs on.
  CHECK(pod.runtime->container_status(id)->state == ContainerState::kRunning);
}

TEST_CASE("port_forward connects to localhost inside the pod's network namespace") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  pod.start("web", {"sh", "-c", "echo hello-pf > /tmp/index.html; exec httpd -f -p 8080 -h /tmp"});
  const std::string answer = get_through_port_forward(pod, 8080);
  CHECK(answer.rfind("HTTP/1.", 0) == 0);
  CHECK(answer.find("hello-pf") != std::string::npos);

  auto refused = pod.runtime->port_forward(pod.sandbox, 8081);
  REQUIRE_FALSE(refused.is_ok());
  const std::string netns = pod.runtime->pod_sandbox_status(pod.sandbox)->netns_path;
  CHECK(refused.status().message() ==
        "failed to execute portforward in network namespace \"" + netns +
            "\": failed to connect to localhost:8081 inside namespace \"" + pod.sandbox +
            "\", IPv4: dial tcp4 127.0.0.1:8081: connect: connection refused IPv6 dial tcp6 "
            "[::1]:8081: connect: connection refused");
  CHECK(pod.runtime->port_forward("nope", 80).status().code() == Code::kNotFound);
  REQUIRE(pod.runtime->stop_pod_sandbox(pod.sandbox).is_ok());
  CHECK(pod.runtime->port_forward(pod.sandbox, 8080).status().message() ==
        "network namespace for sandbox \"" + pod.sandbox + "\" is closed");
}

TEST_CASE("attach: live output to every client, stdin forwarded, a detach on stdin's end") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id = pod.start(
      "reader", {"sh", "-c", "while read line; do echo got:$line; echo err:$line >&2; done"}, true);
  auto first = pod.runtime->attach(id, {true, true, true, false});
  INFO(first.status().to_string());
  REQUIRE(first.is_ok());
  auto second = pod.runtime->attach(id, {false, true, false, false});
  REQUIRE(second.is_ok());
  CHECK((*second)->stdin_fd() == -1);
  CHECK((*second)->stderr_fd() == -1);
  write_all((*first)->stdin_fd(), "one\n");
  CHECK(read_until((*first)->stdout_fd(), "\n") == "got:one\n");
  CHECK(read_until((*first)->stderr_fd(), "\n") == "err:one\n");
  CHECK(read_until((*second)->stdout_fd(), "\n") == "got:one\n");
  // Without stdinOnce, the end of a client's stdin detaches that client only.
  (*first)->close_stdin();
  CHECK(read_until((*first)->stdout_fd()).empty());
  auto detached = (*first)->wait();  // a normal end: the container runs on
  REQUIRE(detached.is_ok());
  CHECK(*detached == 0);
  auto third = pod.runtime->attach(id, {true, true, false, false});
  REQUIRE(third.is_ok());
  write_all((*third)->stdin_fd(), "two\n");
  CHECK(read_until((*third)->stdout_fd(), "\n") == "got:two\n");
  CHECK(read_until((*second)->stdout_fd(), "\n") == "got:two\n");
  // A cancelled attach detaches; the container runs on.
  (*third)->cancel();
  CHECK((*third)->wait().status().code() == Code::kServiceUnavailable);
  CHECK(pod.runtime->container_status(id)->state == ContainerState::kRunning);
  // The log has it all too (stderr's last line may land a moment after stdout's).
  std::string log = slurp_log(pod, "reader");
  for (int i = 0; i < 250 && log.find(" stderr F err:two\n") == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
    log = slurp_log(pod, "reader");
  }
  CHECK(log.find(" stdout F got:one\n") != std::string::npos);
  CHECK(log.find(" stderr F err:two\n") != std::string::npos);
  // The container exits: the remaining client reads to its end and gets the exit code.
  REQUIRE(pod.runtime->stop_container(id, 0s).is_ok());
  read_until((*second)->stdout_fd());
  auto code = (*second)->wait();
  REQUIRE(code.is_ok());
  CHECK(*code == 137);
  CHECK(pod.runtime->attach(id, {}).status().message() == "container is in CONTAINER_EXITED state");
}

TEST_CASE("attach with stdinOnce: the first client's end of stdin is the container's") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id = pod.start("once", {"sh", "-c", "cat; echo after-eof; exit 4"}, true, true);
  auto session = pod.runtime->attach(id, {true, true, true, false});
  REQUIRE(session.is_ok());
  write_all((*session)->stdin_fd(), "typed\n");
  CHECK(read_until((*session)->stdout_fd(), "\n") == "typed\n");
  (*session)->close_stdin();
  CHECK(read_until((*session)->stdout_fd()) == "after-eof\n");
  auto code = (*session)->wait();
  REQUIRE(code.is_ok());
  CHECK(*code == 4);
}

TEST_CASE("attach to a terminal: one stream, resize through the shim") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id =
      pod.start("term", {"sh", "-c", "read go; busybox stty size; exit 5"}, true, false, true);
  auto session = pod.runtime->attach(id, {true, true, true, true});
  INFO(session.status().to_string());
  REQUIRE(session.is_ok());
  CHECK((*session)->stderr_fd() == -1);
  REQUIRE((*session)->resize(77, 22).is_ok());
  std::this_thread::sleep_for(100ms);  // the resize line and the stdin bytes take two paths
  write_all((*session)->stdin_fd(), "go\n");
  const std::string out = read_until((*session)->stdout_fd(), "22 77\r\n");
  INFO(out);
  CHECK(out.find("22 77\r\n") != std::string::npos);
  auto code = (*session)->wait();
  REQUIRE(code.is_ok());
  CHECK(*code == 5);
}

TEST_CASE("attach to a container whose shim has no attach socket (an older k3c's) says so") {
  REQUIRE_ROOT_AND_BUSYBOX();
  Pod pod;
  const std::string id = pod.start("old", {"sleep", "1000"});
  const std::string socket =
      pod.dir.path() + "/data/agent/runtime/containers/" + id + "/process/attach.sock";
  REQUIRE(access(socket.c_str(), F_OK) == 0);
  REQUIRE(unlink(socket.c_str()) == 0);
  auto refused = pod.runtime->attach(id, {false, true, true, false});
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().code() == Code::kNotImplemented);
  CHECK(refused.status().message().find("started by an older k3c") != std::string::npos);
}

TEST_CASE("port_forward for a hostNetwork pod connects in k3c's own network namespace") {
  REQUIRE_ROOT_AND_BUSYBOX();
  // The test binary's namespace, never the host's: shim_test_main.cpp unshared it.
  REQUIRE(readlink_ns("/proc/self/ns/net") != readlink_ns("/proc/1/ns/net"));
  REQUIRE(loopback_up());
  Pod pod(true);
  pod.start("web", {"sh", "-c", "echo host-pf > /tmp/index.html; exec httpd -f -p 18089 -h /tmp"});
  const std::string answer = get_through_port_forward(pod, 18089);
  CHECK(answer.find("host-pf") != std::string::npos);
  auto refused = pod.runtime->port_forward(pod.sandbox, 18090);
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message().rfind(
            "failed to execute portforward in network namespace \"host\": failed to connect to "
            "localhost:18090",
            0) == 0);
}

}  // namespace k3c::runtime

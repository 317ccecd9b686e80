// The container process and its shim, for real: as root, in the test binary's own mount and
// network namespaces (shim_test_main.cpp), on an overlay root built from Debian's
// busybox-static. Every test kills and removes what it started, also when it fails.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "images/test_images.h"
#include "runtime/image_store.h"
#include "runtime/linux_runtime_test_support.h"
#include "runtime/shim/container_process.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr char kBusybox[] = "/bin/busybox";

#define REQUIRE_ROOT_AND_BUSYBOX()                                              \
  do {                                                                          \
    if (geteuid() != 0) {                                                       \
      WARN("skipped: containers need root (mount, namespaces)");                \
      return;                                                                   \
    }                                                                           \
    if (access(kBusybox, X_OK) != 0) {                                          \
      WARN("skipped: /bin/busybox (Debian's busybox-static) is not installed"); \
      return;                                                                   \
    }                                                                           \
  } while (0)

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A root filesystem of busybox and its applet links: the image snapshot, shared by every
// test of this run.
const std::string& busybox_rootfs() {
  static TempDir dir;
  static const std::string root = [] {
    const std::string r = dir.path() + "/rootfs";
    for (const char* d : {"", "/bin", "/tmp", "/etc", "/proc", "/sys", "/dev"}) {
      fs::create_directories(r + d);
    }
    fs::permissions(r + "/tmp", fs::perms::all | fs::perms::sticky_bit);
    fs::copy_file(kBusybox, r + "/bin/busybox");
    for (const char* applet : {"sh", "echo", "cat", "id", "hostname", "sleep", "ls", "touch",
                               "test", "kill", "readlink", "env", "grep", "pwd", "true"}) {
      fs::create_symlink("busybox", r + "/bin/" + applet);
    }
    std::ofstream(r + "/etc/image-file") << "from the image\n";
    // As in images that point resolv.conf at a runtime directory: dangling here.
    fs::create_symlink("../run/resolv/resolv.conf", r + "/etc/resolv.conf");
    return r;
  }();
  return root;
}

Result<ProcessState> wait_exit(const std::string& state_dir, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    auto state = read_process_state(state_dir);
    reap_orphans();
    if (!state.is_ok() || state->exited || std::chrono::steady_clock::now() > deadline) {
      return state;
    }
    std::this_thread::sleep_for(10ms);
  }
}

bool mounted_below(const std::string& dir) {
  return slurp("/proc/self/mountinfo").find(dir) != std::string::npos;
}

// A container for one test: its state and log under a temporary directory, killed and
// removed when the test ends however it ends.
class TestContainer {
 public:
  TestContainer() {
    spec_.id = "c1";
    spec_.state_dir = dir_.path() + "/state";
    spec_.log_path = dir_.path() + "/0.log";
    spec_.lower_dirs = {busybox_rootfs()};
    spec_.process.env = {"PATH=/bin", "HOME=/"};
  }
  ~TestContainer() {
    if (auto state = read_process_state(spec_.state_dir); state.is_ok() && !state->exited) {
      (void)signal_container(spec_.state_dir, SIGKILL);
      (void)wait_exit(spec_.state_dir, 5s);
    }
    (void)remove_container_files(spec_.state_dir);
    reap_orphans();
  }
  LaunchSpec& spec() { return spec_; }
  const std::string& dir() const { return dir_.path(); }
  const std::string& state_dir() const { return spec_.state_dir; }
  std::string log() const { return slurp(spec_.log_path); }

  Result<ProcessState> run(std::vector<std::string> args) {
    spec_.process.args = std::move(args);
    return launch_container(spec_);
  }
  // Runs to completion; the exit state.
  ProcessState run_to_exit(std::vector<std::string> args) {
    auto started = run(std::move(args));
    INFO(started.status().to_string());
    REQUIRE(started.is_ok());
    auto done = wait_exit(spec_.state_dir, 10s);
    REQUIRE(done.is_ok());
    REQUIRE(done->exited);
    return *done;
  }
  // Waits until the log holds `text` (a container writes it some time after its exec).
  bool wait_for_log(const std::string& text) const {
    for (int i = 0; i < 500; ++i) {
      if (log().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  // The log's content lines of one stream, without timestamps.
  std::vector<std::string> lines(const std::string& stream) const {
    std::vector<std::string> out;
    std::istringstream in(log());
    const std::regex record(R"(^(\S+) (stdout|stderr) (F|P) ([^\n]*)$)");
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      REQUIRE(std::regex_match(line, m, record));
      if (m[2] == stream) out.push_back(m[4]);
    }
    return out;
  }

 private:
  TempDir dir_;
  LaunchSpec spec_;
};

// A process holding a new uts namespace with a hostname, for a container to join.
class UtsHolder {
 public:
  explicit UtsHolder(const char* hostname) {
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_ = fork();
    if (pid_ == 0) {
      if (unshare(CLONE_NEWUTS) != 0 || sethostname(hostname, strlen(hostname)) != 0) _exit(1);
      [[maybe_unused]] ssize_t n = write(ready[1], "x", 1);
      pause();
      _exit(0);
    }
    close(ready[1]);
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
    close(ready[0]);
  }
  ~UtsHolder() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::string path() const { return "/proc/" + std::to_string(pid_) + "/ns/uts"; }

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("a container's stdout and stderr become CRI log lines; exit codes are recorded") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  const ProcessState state = c.run_to_exit({"sh", "-c", "echo out; echo err >&2; echo more"});
  CHECK(state.exit_code == 0);
  CHECK(state.signal == 0);
  CHECK(state.finished_at >= state.started_at);
  CHECK(state.pid > 0);
  CHECK(c.lines("stdout") == std::vector<std::string>{"out", "more"});
  CHECK(c.lines("stderr") == std::vector<std::string>{"err"});
  CHECK(std::regex_search(
      c.log(), std::regex(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z stdout F out\n)")));

  TestContainer three;
  CHECK(three.run_to_exit({"sh", "-c", "exit 3"}).exit_code == 3);
}

TEST_CASE("an image imported into the image store runs from its unpacked snapshot") {
  REQUIRE_ROOT_AND_BUSYBOX();
  using namespace k3c::testing;
  TempDir data;
  auto store = ImageStore::open(data.path());
  REQUIRE(store.is_ok());
  TestImage image;
  image.repo_tag = "busybox:shim";
  image.layers = {{dir("bin"), file("bin/busybox", slurp(kBusybox), 0755),
                   symlink("bin/sh", "busybox"), symlink("bin/cat", "busybox")},
                  {dir("etc"), file("etc/motd", "second layer\n")}};
  const std::string tarball = data.path() + "/busybox.tar";
  std::ofstream(tarball) << tar_of(docker_archive_files(image), Compression::kNone);
  REQUIRE((*store)->import_file(tarball).is_ok());
  auto root = (*store)->unpack("busybox:shim");
  REQUIRE(root.is_ok());
  TestContainer c;
  c.spec().lower_dirs = {*root};
  c.run_to_exit({"sh", "-c", "cat /etc/motd; echo changed > /etc/motd"});
  CHECK(c.lines("stdout") == std::vector<std::string>{"second layer"});
  CHECK(slurp(*root + "/etc/motd") == "second layer\n");  // the snapshot stays untouched
}

TEST_CASE("a missing executable fails the launch with runc's message and leaves nothing") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  auto started = c.run({"nosuch", "arg"});
  REQUIRE_FALSE(started.is_ok());
  CHECK(started.status().code() == Code::kInvalid);
  CHECK(started.status().message() == "exec: \"nosuch\": executable file not found in $PATH");
  CHECK_FALSE(fs::exists(c.state_dir()));
  CHECK_FALSE(mounted_below(c.dir()));
  reap_orphans();
  CHECK(waitpid(-1, nullptr, WNOHANG) <= 0);  // no process of ours is left

  auto bad_cwd = c.run({"/bin/nosuch"});
  REQUIRE_FALSE(bad_cwd.is_ok());
  CHECK(bad_cwd.status().message() ==
        "exec: \"/bin/nosuch\": stat /bin/nosuch: No such file or directory");
  CHECK_FALSE(fs::exists(c.state_dir()));
}

TEST_CASE("SIGTERM and SIGKILL are recorded as the kubelet reports them") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer killed;
  auto started = killed.run({"sleep", "1000"});
  REQUIRE(started.is_ok());
  CHECK_FALSE(started->exited);
  REQUIRE(signal_container(killed.state_dir(), SIGKILL).is_ok());
  auto state = wait_exit(killed.state_dir(), 5s);
  REQUIRE(state.is_ok());
  REQUIRE(state->exited);
  CHECK(state->exit_code == 137);
  CHECK(state->signal == 9);
  CHECK(signal_container(killed.state_dir(), SIGKILL).is_ok());  // exited: nothing to do

  // PID 1 of a pid namespace ignores SIGTERM without a handler (as under runc); in the host
  // pid namespace, sleep dies of it.
  TestContainer termed;
  termed.spec().pid.mode = NamespaceMode::kHost;
  REQUIRE(termed.run({"sleep", "1000"}).is_ok());
  REQUIRE(signal_container(termed.state_dir(), SIGTERM).is_ok());
  state = wait_exit(termed.state_dir(), 5s);
  REQUIRE(state.is_ok());
  REQUIRE(state->exited);
  CHECK(state->exit_code == 143);
  CHECK(state->signal == 15);
}

TEST_CASE("the container sees PID 1, its own /proc, /dev nodes and the image root") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.run_to_exit({"sh", "-c",
                 "echo pid=$$; cat /proc/1/cmdline | tr '\\0' ' '; echo;"
                 "test -c /dev/null && echo x > /dev/null && echo null-ok;"
                 "test -c /dev/urandom && test -L /dev/ptmx && test -d /dev/pts && "
                 "test -d /dev/shm && echo dev-ok;"
                 "readlink /dev/fd; cat /etc/image-file; ls /proc/1/root/ > /dev/null && "
                 "touch /sys/x 2>/dev/null || echo sys-ro"});
  const auto out = c.lines("stdout");
  REQUIRE(out.size() >= 7);
  CHECK(out[0] == "pid=1");
  CHECK(out[1].find("sh -c") == 0);
  CHECK(out[2] == "null-ok");
  CHECK(out[3] == "dev-ok");
  CHECK(out[4] == "/proc/self/fd");
  CHECK(out[5] == "from the image");
  CHECK(out[6] == "sys-ro");
  CHECK(c.lines("stderr").empty());
  // The container's writes went to its upper dir, never to the image snapshot.
  CHECK_FALSE(mounted_below(c.dir()));
}

TEST_CASE("a privileged container gets the host's devices; an unprivileged one does not") {
  REQUIRE_ROOT_AND_BUSYBOX();
  // A host device beyond the standard set (the machine's disk, /dev/kmsg, ...).
  std::string name;
  struct stat host {};
  for (const auto& entry : fs::directory_iterator("/dev")) {
    const std::string n = entry.path().filename();
    if (n == "null" || n == "zero" || n == "full" || n == "random" || n == "urandom" ||
        n == "tty" || n == "console" || n == "ptmx")
      continue;
    if (lstat(entry.path().c_str(), &host) == 0 &&
        (S_ISCHR(host.st_mode) || S_ISBLK(host.st_mode))) {
      name = n;
      break;
    }
  }
  REQUIRE_FALSE(name.empty());
  INFO("/dev/" << name);
  const std::string probe = "if test -e /dev/" + name + "; then stat -c '%t:%T %a' /dev/" + name +
                            "; else echo absent; fi";
  TestContainer privileged;
  privileged.spec().privileged = true;
  privileged.run_to_exit({"sh", "-c", probe});
  std::ostringstream want;
  want << std::hex << major(host.st_rdev) << ":" << minor(host.st_rdev) << " " << std::oct
       << (host.st_mode & 07777);
  CHECK(privileged.lines("stdout") == std::vector<std::string>{want.str()});
  TestContainer plain;
  plain.run_to_exit({"sh", "-c", probe});
  CHECK(plain.lines("stdout") == std::vector<std::string>{"absent"});
}

TEST_CASE("hostnames: a joined uts namespace's, or the one set in a new namespace") {
  REQUIRE_ROOT_AND_BUSYBOX();
  UtsHolder holder("pod-host");
  TestContainer joined;
  joined.spec().uts = {NamespaceMode::kJoin, holder.path()};
  joined.run_to_exit({"hostname"});
  CHECK(joined.lines("stdout") == std::vector<std::string>{"pod-host"});

  TestContainer fresh;
  fresh.spec().hostname = "fresh-name";
  fresh.run_to_exit({"hostname"});
  CHECK(fresh.lines("stdout") == std::vector<std::string>{"fresh-name"});
}

TEST_CASE("joined pid, net and ipc namespaces are the first container's") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer first;
  const auto launch_start = std::chrono::steady_clock::now();
  auto started = first.run({"sleep", "1000"});
  const auto launch_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - launch_start)
                             .count();
  WARN("launch_container to exec: " << launch_ms << " ms");
  REQUIRE(started.is_ok());
  const std::string ns = "/proc/" + std::to_string(started->pid) + "/ns/";
  TestContainer second;
  second.spec().pid = {NamespaceMode::kJoin, ns + "pid"};
  second.spec().net = {NamespaceMode::kJoin, ns + "net"};
  second.spec().ipc = {NamespaceMode::kJoin, ns + "ipc"};
  second.run_to_exit({"sh", "-c",
                      "cat /proc/1/cmdline | tr '\\0' ' '; echo; readlink /proc/self/ns/net; "
                      "readlink /proc/self/ns/ipc; echo pid=$$"});
  const auto out = second.lines("stdout");
  REQUIRE(out.size() == 4);
  CHECK(out[0] == "sleep 1000 ");
  CHECK(out[1] == fs::read_symlink(ns + "net").string());
  CHECK(out[2] == fs::read_symlink(ns + "ipc").string());
  CHECK(out[3] != "pid=1");
  CHECK(fs::read_symlink(ns + "net") != fs::read_symlink("/proc/self/ns/net"));
}

TEST_CASE("stdin: held open when asked, /dev/null otherwise") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer closed;
  closed.run_to_exit({"sh", "-c", "cat; echo eof"});
  CHECK(closed.lines("stdout") == std::vector<std::string>{"eof"});

  TestContainer open;
  open.spec().process.stdin = true;
  REQUIRE(open.run({"sh", "-c", "cat; echo eof"}).is_ok());
  std::this_thread::sleep_for(300ms);
  auto state = read_process_state(open.state_dir());
  REQUIRE(state.is_ok());
  CHECK_FALSE(state->exited);  // still reading its stdin
}

TEST_CASE("bind mounts: read-only refuses writes, read-write writes through") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  const std::string ro = c.dir() + "/ro", rw = c.dir() + "/rw";
  fs::create_directories(ro);
  fs::create_directories(rw);
  std::ofstream(ro + "/f") << "host data\n";
  std::ofstream(c.dir() + "/hosts") << "127.0.0.1 localhost\n";
  std::ofstream(c.dir() + "/resolv.conf") << "nameserver 10.43.0.10\n";
  c.spec().mounts = {{ro, "/data/ro", true, true},
                     {rw, "/data/rw", false, true},
                     {c.dir() + "/hosts", "/etc/hosts", true, false},
                     {c.dir() + "/resolv.conf", "/etc/resolv.conf", true, false}};
  const ProcessState state = c.run_to_exit(
      {"sh", "-c",
       "cat /data/ro/f; touch /data/ro/new || echo ro-refused; echo hi > /data/rw/out; "
       "cat /etc/hosts; echo x >> /etc/hosts || echo hosts-ro; cat /etc/resolv.conf"});
  CHECK(state.exit_code == 0);
  CHECK(c.lines("stdout") == std::vector<std::string>{"host data", "ro-refused",
                                                      "127.0.0.1 localhost", "hosts-ro",
                                                      "nameserver 10.43.0.10"});
  CHECK(slurp(rw + "/out") == "hi\n");
  CHECK_FALSE(fs::exists(ro + "/new"));
  const auto err = c.lines("stderr");
  REQUIRE(!err.empty());
  CHECK(err[0].find("Read-only file system") != std::string::npos);
}

TEST_CASE("a read-only root filesystem refuses writes; the working directory is created") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.spec().read_only_rootfs = true;
  c.spec().process.cwd = "/work/dir";
  c.run_to_exit({"sh", "-c", "pwd; touch /x || echo root-ro"});
  CHECK(c.lines("stdout") == std::vector<std::string>{"/work/dir", "root-ro"});
}

TEST_CASE("uid, gid, supplementary groups and capabilities are applied") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer user;
  user.spec().process.uid = 1000;
  user.spec().process.gid = 2000;
  user.spec().process.groups = {3000};
  user.spec().process.capabilities = {"CAP_CHOWN", "CAP_KILL"};
  user.spec().process.no_new_privs = true;
  user.run_to_exit({"sh", "-c", "id; grep -E '^(Cap(Eff|Bnd|Amb)|NoNewPrivs)' /proc/self/status"});
  const auto out = user.lines("stdout");
  REQUIRE(out.size() == 5);
  CHECK(out[0] == "uid=1000 gid=2000 groups=3000");
  // Non-root: nothing effective (no ambient set, as containerd); the bounding set is kept.
  CHECK(std::regex_match(out[1], std::regex(R"(CapEff:\s+0000000000000000)")));
  CHECK(std::regex_match(out[2], std::regex(R"(CapBnd:\s+0000000000000021)")));
  CHECK(std::regex_match(out[3], std::regex(R"(CapAmb:\s+0000000000000000)")));
  CHECK(std::regex_match(out[4], std::regex(R"(NoNewPrivs:\s+1)")));

  TestContainer root;
  root.spec().process.capabilities = {"CAP_CHOWN", "CAP_KILL"};
  root.run_to_exit({"sh", "-c", "grep -E '^Cap(Eff|Prm)' /proc/self/status"});
  const auto caps = root.lines("stdout");
  REQUIRE(caps.size() == 2);
  CHECK(std::regex_match(caps[0], std::regex(R"(CapPrm:\s+0000000000000021)")));
  CHECK(std::regex_match(caps[1], std::regex(R"(CapEff:\s+0000000000000021)")));

  TestContainer bad;
  bad.spec().process.capabilities = {"CAP_FLY"};
  auto refused = bad.run({"true"});
  REQUIRE_FALSE(refused.is_ok());
  CHECK(refused.status().message() == "unknown capability \"CAP_FLY\"");
}

TEST_CASE("the container's pid goes into the cgroup files, its OOM score is set, before it runs") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  // Plain files stand in for cgroup.procs: what matters is the pid written before exec.
  const std::string procs = c.dir() + "/cgroup.procs";
  std::ofstream(procs) << "";
  c.spec().cgroup_procs_files = {procs};
  c.spec().oom_score_adj = 1000;
  auto started = c.run({"sleep", "1000"});
  REQUIRE(started.is_ok());
  CHECK(slurp(procs) == std::to_string(started->pid));
  CHECK(slurp("/proc/" + std::to_string(started->pid) + "/oom_score_adj") == "1000\n");

  TestContainer missing;
  missing.spec().cgroup_procs_files = {c.dir() + "/no/such/cgroup.procs"};
  auto refused = missing.run({"true"});
  REQUIRE_FALSE(refused.is_ok());
  INFO(refused.status().to_string());
  CHECK(refused.status().message().find("no/such/cgroup.procs") != std::string::npos);
  CHECK_FALSE(fs::exists(missing.state_dir()));
}

TEST_CASE("a real cgroup (v1 pids or v2): the container and its exec'd processes join it") {
  REQUIRE_ROOT_AND_BUSYBOX();
  // A cgroup of this test's own, removed at the end, under whichever hierarchy is here.
  std::string procs_dir;
  for (const char* base : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"}) {
    if (access((std::string(base) + "/cgroup.procs").c_str(), W_OK) == 0) {
      procs_dir = std::string(base) + "/k3c-shim-test-" + std::to_string(getpid());
      break;
    }
  }
  if (procs_dir.empty() || mkdir(procs_dir.c_str(), 0755) != 0) {
    WARN("skipped: no writable cgroup hierarchy");
    return;
  }
  struct RemoveCgroup {
    std::string dir;
    ~RemoveCgroup() {
      for (int i = 0; i < 100 && rmdir(dir.c_str()) != 0 && errno == EBUSY; ++i) {
        std::this_thread::sleep_for(10ms);
      }
    }
  } remove_cgroup{procs_dir};
  {
    TestContainer c;
    c.spec().cgroup_procs_files = {procs_dir + "/cgroup.procs"};
    auto started = c.run({"sleep", "1000"});
    REQUIRE(started.is_ok());
    CHECK(slurp(procs_dir + "/cgroup.procs") == std::to_string(started->pid) + "\n");
    ProcessSpec probe;
    probe.args = {"sh", "-c", "sleep 0.3 & cat /proc/self/cgroup"};
    auto result = exec_in_container(c.state_dir(), probe, 5s);
    REQUIRE(result.is_ok());
    const std::string name = procs_dir.substr(procs_dir.rfind('/'));
    CHECK(result->stdout_bytes.find(name) != std::string::npos);
  }                                    // the container is killed and removed here
  std::this_thread::sleep_for(400ms);  // the exec's background sleep ends
}

TEST_CASE("the shim survives the process that launched it and is re-adopted") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.spec().process.args = {"sh", "-c", "echo started; exec sleep 1000"};
  const pid_t launcher = fork();
  if (launcher == 0) _exit(launch_container(c.spec()).is_ok() ? 0 : 1);
  int status = 0;
  REQUIRE(waitpid(launcher, &status, 0) == launcher);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  auto state = read_process_state(c.state_dir());
  REQUIRE(state.is_ok());
  CHECK_FALSE(state->exited);
  CHECK(kill(state->shim_pid, 0) == 0);
  CHECK(getsid(state->shim_pid) != getsid(0));  // detached into its own session
  // Its resident memory (the test binary as the shim), for doc/runtime.md.
  const std::string status_file = slurp("/proc/" + std::to_string(state->shim_pid) + "/status");
  std::smatch rss;
  REQUIRE(std::regex_search(status_file, rss, std::regex(R"(VmRSS:\s+(\d+) kB)")));
  WARN("shim VmRSS: " << rss[1] << " kB");
  CHECK(std::stoi(rss[1]) < 16 * 1024);
  REQUIRE(c.wait_for_log("started"));
  REQUIRE(signal_container(c.state_dir(), SIGKILL).is_ok());
  state = wait_exit(c.state_dir(), 5s);
  REQUIRE(state.is_ok());
  CHECK(state->exited);
  CHECK(state->exit_code == 137);
  CHECK(c.lines("stdout") == std::vector<std::string>{"started"});
}

TEST_CASE("a container whose shim was killed still reads as running and can be killed") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.spec().pid.mode = NamespaceMode::kHost;  // the orphan is then reaped by this process
  auto started = c.run({"sleep", "1000"});
  REQUIRE(started.is_ok());
  REQUIRE(kill(started->shim_pid, SIGKILL) == 0);
  for (int i = 0; i < 500 && kill(started->shim_pid, 0) == 0; ++i) {
    reap_orphans();
    std::this_thread::sleep_for(10ms);
  }
  auto state = read_process_state(c.state_dir());
  REQUIRE(state.is_ok());
  CHECK_FALSE(state->exited);
  CHECK(state->error.find("is gone; the container runs on") != std::string::npos);
  REQUIRE(signal_container(c.state_dir(), SIGKILL).is_ok());
  state = wait_exit(c.state_dir(), 5s);
  REQUIRE(state.is_ok());
  CHECK(state->exited);
  CHECK(state->exit_code == 255);
  CHECK(state->error.find("recorded no exit status") != std::string::npos);
  CHECK(kill(started->pid, 0) != 0);
}

TEST_CASE("the real k3c binary is the shim: `k3c shim run` and `k3c shim exec`") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.spec().shim_binary = K3C_BINARY;
  const auto launch_start = std::chrono::steady_clock::now();
  auto started = c.run({"sh", "-c", "echo via-k3c; exec sleep 1000"});
  WARN("launch_container with k3c as shim: "
       << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                launch_start)
              .count()
       << " ms");
  REQUIRE(started.is_ok());
  CHECK(slurp("/proc/" + std::to_string(started->shim_pid) + "/cmdline").rfind("k3c", 0) == 0);
  // Its memory, for doc/runtime.md: most of VmRSS is file pages shared with k3c itself;
  // what each shim costs on its own is its anonymous memory.
  const std::string status_file = slurp("/proc/" + std::to_string(started->shim_pid) + "/status");
  std::smatch rss, anon;
  REQUIRE(std::regex_search(status_file, rss, std::regex(R"(VmRSS:\s+(\d+) kB)")));
  REQUIRE(std::regex_search(status_file, anon, std::regex(R"(RssAnon:\s+(\d+) kB)")));
  WARN("k3c shim VmRSS " << rss[1] << " kB, of which anonymous " << anon[1] << " kB");
  CHECK(std::stoi(anon[1]) < 4 * 1024);
  ProcessSpec probe;
  probe.args = {"cat", "/etc/image-file"};
  auto result = exec_in_container(c.state_dir(), probe, 5s);
  REQUIRE(result.is_ok());
  CHECK(result->stdout_bytes == "from the image\n");
  REQUIRE(c.wait_for_log("via-k3c"));
  REQUIRE(signal_container(c.state_dir(), SIGKILL).is_ok());
  REQUIRE(wait_exit(c.state_dir(), 5s).is_ok());
  CHECK(c.lines("stdout") == std::vector<std::string>{"via-k3c"});
}

TEST_CASE("exec_in_container runs in the container's root, pid namespace and identity") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  REQUIRE(c.run({"sh", "-c", "echo in-container > /tmp/marker; exec sleep 1000"}).is_ok());
  ProcessSpec probe;
  probe.env = {"PATH=/bin"};
  probe.args = {"sh", "-c",
                "while ! test -f /tmp/marker; do sleep 0.01; done; cat /tmp/marker; "
                "cat /proc/1/cmdline; echo; echo err >&2; exit 3"};
  auto result = exec_in_container(c.state_dir(), probe, 5s);
  REQUIRE(result.is_ok());
  CHECK(result->exit_code == 3);
  CHECK_FALSE(result->timed_out);
  CHECK(result->stdout_bytes == std::string("in-container\nsleep") + '\0' + "1000" + '\0' + "\n");
  CHECK(result->stderr_bytes == "err\n");

  probe.args = {"id"};
  probe.uid = 1234;
  probe.gid = 1234;
  result = exec_in_container(c.state_dir(), probe, 5s);
  REQUIRE(result.is_ok());
  CHECK(result->stdout_bytes == "uid=1234 gid=1234\n");  // no supplementary groups asked

  probe.args = {"nosuch"};
  result = exec_in_container(c.state_dir(), probe, 5s);
  REQUIRE_FALSE(result.is_ok());
  CHECK(result.status().message() == "exec: \"nosuch\": executable file not found in $PATH");

  probe.uid = probe.gid = 0;
  probe.args = {"sleep", "30"};
  const auto before = std::chrono::steady_clock::now();
  result = exec_in_container(c.state_dir(), probe, 300ms);
  REQUIRE(result.is_ok());
  CHECK(result->timed_out);
  CHECK(std::chrono::steady_clock::now() - before < 5s);

  REQUIRE(signal_container(c.state_dir(), SIGKILL).is_ok());
  REQUIRE(wait_exit(c.state_dir(), 5s).is_ok());
  probe.args = {"true"};
  CHECK(exec_in_container(c.state_dir(), probe, 1s).status().code() == Code::kConflict);
}

TEST_CASE("a terminal: the container's stdio is a tty, its output logged as stdout") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.spec().process.tty = true;
  c.run_to_exit({"sh", "-c", "test -t 0 && test -t 1 && echo on-a-tty"});
  const auto out = c.lines("stdout");
  REQUIRE(out.size() == 1);
  CHECK(out[0].rfind("on-a-tty", 0) == 0);  // a terminal turns \n into \r\n
}

TEST_CASE("a terminal comes from the container's own devpts and is its /dev/console") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  c.spec().process.tty = true;
  // The first pty of the container's new devpts instance; /dev/console is the same device.
  c.run_to_exit({"sh", "-c", "tty; [ /dev/console -ef /dev/pts/0 ] && echo console-is-pts0"});
  const auto out = c.lines("stdout");
  REQUIRE(out.size() == 2);
  CHECK(out[0].rfind("/dev/pts/0", 0) == 0);
  CHECK(out[1].rfind("console-is-pts0", 0) == 0);
}

TEST_CASE("after a log rotation, reopen_container_log makes the shim write the new file") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  REQUIRE(
      c.run({"sh", "-c", "i=0; while true; do echo line$i; i=$((i+1)); sleep 0.02; done"}).is_ok());
  REQUIRE(c.wait_for_log("line1\n"));
  const std::string log_path = c.spec().log_path;
  fs::rename(log_path, log_path + ".1");
  REQUIRE(reopen_container_log(c.state_dir()).is_ok());
  REQUIRE(c.wait_for_log(" stdout F line"));  // the new file, created by the shim
  const std::string rotated = slurp(log_path + ".1");
  CHECK(rotated.find("line1\n") != std::string::npos);
  CHECK(rotated.back() == '\n');  // whole records only
}

TEST_CASE("remove_container_files refuses a running container and removes an exited one") {
  REQUIRE_ROOT_AND_BUSYBOX();
  TestContainer c;
  REQUIRE(c.run({"sleep", "1000"}).is_ok());
  CHECK(remove_container_files(c.state_dir()).code() == Code::kConflict);
  REQUIRE(signal_container(c.state_dir(), SIGKILL).is_ok());
  REQUIRE(wait_exit(c.state_dir(), 5s).is_ok());
  REQUIRE(remove_container_files(c.state_dir()).is_ok());
  CHECK_FALSE(fs::exists(c.state_dir()));
  CHECK(read_process_state(c.state_dir()).status().code() == Code::kNotFound);
  CHECK(remove_container_files(c.state_dir()).is_ok());
}

TEST_CASE("seccomp RuntimeDefault: a filter in place, ordinary work allowed, the rest EPERM") {
  REQUIRE_ROOT_AND_BUSYBOX();
  // All capabilities, so that what fails below fails because of the filter.
  const std::string script =
      "grep Seccomp: /proc/self/status; ls / > /dev/null && echo ls-ok; "
      "swapon /etc/image-file 2>&1; unshare -n true && echo unshare-ok";
  TestContainer confined;
  confined.spec().process.capabilities = {"ALL"};
  confined.spec().process.seccomp = SeccompProfile::kRuntimeDefault;
  confined.run_to_exit({"sh", "-c", script});
  const auto out = confined.lines("stdout");
  REQUIRE(out.size() == 4);
  CHECK(std::regex_match(out[0], std::regex(R"(Seccomp:\s+2)")));
  CHECK(out[1] == "ls-ok");
  INFO(out[2]);
  CHECK(out[2].find("Operation not permitted") != std::string::npos);  // swapon: not allowed
  CHECK(out[3] == "unshare-ok");  // allowed with CAP_SYS_ADMIN, as upstream

  TestContainer unconfined;
  unconfined.spec().process.capabilities = {"ALL"};
  unconfined.run_to_exit({"sh", "-c", script});
  const auto free_out = unconfined.lines("stdout");
  REQUIRE(free_out.size() == 4);
  CHECK(std::regex_match(free_out[0], std::regex(R"(Seccomp:\s+0)")));
  INFO(free_out[2]);
  CHECK(free_out[2].find("Operation not permitted") == std::string::npos);  // the kernel's answer

  // Without CAP_SYS_ADMIN: forks still work (clone without namespace flags), unshare does
  // not; with no_new_privs the filter is installed all the same.
  TestContainer plain;
  plain.spec().process.capabilities = {"CAP_KILL"};
  plain.spec().process.seccomp = SeccompProfile::kRuntimeDefault;
  plain.spec().process.no_new_privs = true;
  plain.run_to_exit({"sh", "-c", "echo child-ok | cat; unshare -n true || echo unshare-refused"});
  CHECK(plain.lines("stdout") == std::vector<std::string>{"child-ok", "unshare-refused"});
}

}  // namespace k3c::runtime

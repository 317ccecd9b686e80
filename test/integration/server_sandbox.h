// A sandbox for running the real k3c binary in integration tests: a temporary HOME, config
// file and data dir, a free loopback port for the API, and a server started with
// $NOTIFY_SOCKET that the test waits on for READY=1. Nothing outside the sandbox is touched.
//
// A server with its worker roles (no --disable-agent) must run in namespaces of its own
// (RunningServer's Launch::kInNamespaces, root only): fresh mount (private), network (only lo,
// up) and PID namespaces. Everything it starts dies with it, also when a test fails.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "notify_listener.h"
#include "temp_dir.h"

namespace k3c {

using namespace std::chrono_literals;
using testing::ChildProcess;
using testing::Finished;
using testing::run_to_end;

inline bool exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

// A port nobody listens on right now (the kernel's pick for port 0 on loopback).
inline uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A scratch area for one k3c run: HOME, an (empty) config file, a data dir path.
class Sandbox {
 public:
  // The API listens on loopback only, on a free port, set in the config file (so that a test
  // can still give any flag; tests of config mistakes overwrite the file).
  Sandbox() : port_(free_port()) {
    write_config("bind-address: 127.0.0.1\nhttps-listen-port: " + std::to_string(port_) + "\n");
  }

  std::string path(const std::string& name) const { return dir_.path() + "/" + name; }
  std::string config() const { return path("config.yaml"); }
  std::string data_dir() const { return path("data"); }
  std::string kubeconfig() const { return path("kubeconfig.yaml"); }
  uint16_t port() const { return port_; }
  void write_config(const std::string& yaml) const { std::ofstream(config()) << yaml; }

  // The only variables k3c sees: no K3C_* or NOTIFY_SOCKET leaks in from the test runner.
  std::map<std::string, std::string> env() const {
    return {{"HOME", dir_.path()}, {"PATH", "/usr/bin:/bin"}};
  }
  std::vector<std::string> server_args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {K3C_BINARY,
                                     "server",
                                     "-c",
                                     config(),
                                     "-d",
                                     data_dir(),
                                     "--write-kubeconfig",
                                     path("kubeconfig.yaml")};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  Finished run(const std::vector<std::string>& args) const {
    return run_to_end(args, env(), path("run"));
  }

 private:
  TempDir dir_;
  uint16_t port_;
};

// Why this process cannot run a server in namespaces of its own; "" when it can.
inline std::string namespaces_unavailable() {
  if (geteuid() != 0) return "needs root (to create mount, network and PID namespaces)";
  for (const char* tool : {"/usr/bin/unshare", "/usr/bin/nsenter"}) {
    if (!exists(tool)) return std::string("needs ") + tool;
  }
  if (!exists("/usr/sbin/ip") && !exists("/sbin/ip")) return "needs ip (iproute2)";
  return "";
}

// `argv` run by unshare(1) in fresh mount (private propagation, its own /proc), network and
// PID namespaces, with lo brought up first. The unshare process stays in the new mount and
// network namespaces (so /proc/<its pid>/ns/net names the network) and forks the program as
// PID 1 of the new PID namespace; killing unshare kills it (--kill-child), and with it every
// process of that namespace.
inline std::vector<std::string> in_namespaces(const std::vector<std::string>& argv) {
  const std::string ip = exists("/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip";
  std::vector<std::string> wrapped = {"/usr/bin/unshare",
                                      "--mount",
                                      "--net",
                                      "--pid",
                                      "--fork",
                                      "--kill-child",
                                      "--propagation",
                                      "private",
                                      "--mount-proc",
                                      "/bin/sh",
                                      "-c",
                                      ip + " link set lo up && exec \"$0\" \"$@\""};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

enum class Launch { kDirect, kInNamespaces };

// The cgroup a namespaced server's pods go under (--kubelet-arg=cgroup-root): cgroups are not
// namespaced, so each server gets a name of its own, and the whole tree is removed when the
// server is gone (in every v1 hierarchy and in v2), also when the test failed.
class TestCgroupRoot {
 public:
  TestCgroupRoot() {
    static std::atomic<int> next{0};
    name_ = "k3c-test-" + std::to_string(getpid()) + "-" + std::to_string(next++);
  }
  ~TestCgroupRoot() {
    namespace fs = std::filesystem;
    std::vector<fs::path> roots = {"/sys/fs/cgroup"};
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/sys/fs/cgroup", ec))
      if (entry.is_directory(ec)) roots.push_back(entry.path());
    for (const fs::path& root : roots) remove_tree(root / name_);
  }
  const std::string& name() const { return name_; }

 private:
  // A teardown cut short (a server stopped in the middle of a kill_all) can leave a
  // container frozen, and a frozen process outlives even its PID namespace: thaw (v1
  // freezer) and kill whatever is still in the test's cgroup.
  static void release(const std::filesystem::path& dir) {
    std::error_code ec;
    if (std::filesystem::exists(dir / "freezer.state", ec))
      std::ofstream(dir / "freezer.state") << "THAWED";
    std::ifstream procs(dir / "cgroup.procs");
    for (pid_t pid; procs >> pid;)
      if (pid > 1) kill(pid, SIGKILL);
  }
  // Leaf first; a cgroup whose last processes are still exiting is busy for a moment.
  static void remove_tree(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return;
    release(dir);
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.is_directory(ec)) remove_tree(entry.path());
    for (int attempt = 0; attempt < 50 && rmdir(dir.c_str()) != 0 && errno == EBUSY; ++attempt)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string name_;
};

// Starts the server with $NOTIFY_SOCKET and waits for READY=1.
struct RunningServer {
  explicit RunningServer(const Sandbox& box, std::vector<std::string> extra = {},
                         Launch launch = Launch::kDirect)
      : listener(box.path("notify.sock")),
        process(launch == Launch::kInNamespaces
                    ? in_namespaces(box.server_args(with_worker_paths(box, std::move(extra))))
                    : box.server_args(std::move(extra)),
                env_with_notify(box), box.path("server")),
        launch(launch) {
    ready = listener.receive(20s);
  }
  // The k3c process: for a server in namespaces, unshare's child (0 when it is not there).
  pid_t server_pid() const {
    if (launch == Launch::kDirect) return process.pid();
    const std::string pid = std::to_string(process.pid());
    std::ifstream children("/proc/" + pid + "/task/" + pid + "/children");
    pid_t child = 0;
    children >> child;
    return child;
  }
  // Sends `signo` to k3c itself (unshare does not pass signals on).
  void signal(int signo) const {
    if (pid_t pid = server_pid(); pid > 0) kill(pid, signo);
  }
  // What runs a command in the server's network namespace (where its loopback listener is):
  // a prefix for the command line; empty for a server launched directly.
  std::vector<std::string> enter_prefix() const {
    if (launch == Launch::kDirect) return {};
    return {"/usr/bin/nsenter", "--net=/proc/" + std::to_string(process.pid()) + "/ns/net"};
  }
  // A server that died of a signal the test did not send (a crash) leaves its report, from
  // its own stderr, in the test's output; so does a JSON misuse it survived (a bug all the
  // same, see src/core/json_config.h).
  ~RunningServer() {
    std::istringstream lines(process.err());
    for (std::string line; std::getline(lines, line);) {
      if (line.find("nlohmann::json misuse") != std::string::npos) std::cerr << line << "\n";
    }
    auto code = process.wait(0ms);
    if (code && *code > 128 && *code != 128 + SIGTERM && *code != 128 + SIGKILL) {
      std::string err = process.err();
      if (err.size() > 16384) err = "...\n" + err.substr(err.size() - 16384);
      std::cerr << "k3c server died of signal " << *code - 128 << "; the end of its stderr:\n"
                << err << std::endl;
    }
  }
  // A namespaced server runs pods: their cgroups go under this server's own cgroup root and
  // their logs into the sandbox (nothing under the host's /var/log/pods).
  std::vector<std::string> with_worker_paths(const Sandbox& box, std::vector<std::string> extra) {
    extra.push_back("--kubelet-arg=cgroup-root=/" + cgroups.name());
    extra.push_back("--kubelet-arg=pod-logs-dir=" + box.path("pod-logs"));
    add_test_eviction_thresholds(extra);
    return extra;
  }
  // Pods of a test must not be evicted for the state of the disk of the machine running it
  // (a CI disk fuller than upstream's 85% imagefs threshold, say): unless the test sets its
  // own, the hard thresholds (which replace upstream's defaults) keep only upstream's memory
  // one, so allocatable memory is as upstream's and no disk or inode threshold applies.
  static void add_test_eviction_thresholds(std::vector<std::string>& args) {
    for (const std::string& a : args)
      if (a.rfind("--kubelet-arg=eviction-hard=", 0) == 0) return;
    args.push_back("--kubelet-arg=eviction-hard=memory.available<100Mi");
  }
  static std::map<std::string, std::string> env_with_notify(const Sandbox& box) {
    auto env = box.env();
    env["NOTIFY_SOCKET"] = box.path("notify.sock");
    return env;
  }
  NotifyListener listener;
  TestCgroupRoot cgroups;  // before `process`: removed after the server is gone
  ChildProcess process;
  Launch launch;
  std::string ready;
};

}  // namespace k3c

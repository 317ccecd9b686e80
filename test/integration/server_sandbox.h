// A sandbox for running the real k3c binary in integration tests: a temporary HOME, config
// file and data dir, a free loopback port for the API, and a server started with
// $NOTIFY_SOCKET that the test waits on for READY=1. Nothing outside the sandbox is touched.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <map>
#include <string>
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

// Starts the server with $NOTIFY_SOCKET and waits for READY=1.
struct RunningServer {
  explicit RunningServer(const Sandbox& box, std::vector<std::string> extra = {})
      : listener(box.path("notify.sock")),
        process(box.server_args(std::move(extra)), env_with_notify(box), box.path("server")) {
    ready = listener.receive(20s);
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
  static std::map<std::string, std::string> env_with_notify(const Sandbox& box) {
    auto env = box.env();
    env["NOTIFY_SOCKET"] = box.path("notify.sock");
    return env;
  }
  NotifyListener listener;
  ChildProcess process;
  std::string ready;
};

}  // namespace k3c

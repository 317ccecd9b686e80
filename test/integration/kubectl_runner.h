// Runs the real kubectl (a given version) against a sandboxed k3c server: the versioned
// binaries kubectl.1.27 ... kubectl.1.33 sit in the folder the kubectl on PATH resolves into.
#pragma once

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server_sandbox.h"

namespace k3c {

inline std::string kubectl_dir() {
  const char* path = getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/kubectl";
    char resolved[PATH_MAX];
    if (access(candidate.c_str(), X_OK) == 0 && realpath(candidate.c_str(), resolved)) {
      std::string r(resolved);
      return r.substr(0, r.rfind('/'));
    }
  }
  return "";
}

struct KubectlRunner {
  const Sandbox& box;
  std::string binary;
  std::map<std::string, std::string> extra_env = {};
  // Runs kubectl through this (e.g. RunningServer::enter_prefix(): nsenter into the server's
  // network namespace).
  std::vector<std::string> prefix = {};

  std::map<std::string, std::string> env() const {
    std::map<std::string, std::string> e = box.env();
    e["KUBECONFIG"] = box.kubeconfig();
    for (const auto& [k, v] : extra_env) e[k] = v;
    return e;
  }
  // The command line of `kubectl args...` (for a kubectl run as a child process).
  std::vector<std::string> argv(std::vector<std::string> args) const {
    args.insert(args.begin(), binary);
    args.insert(args.begin(), prefix.begin(), prefix.end());
    return args;
  }
  // Runs `kubectl args... [-f file]` to its end (30 s at most).
  Finished operator()(std::vector<std::string> args, const std::string& file = "") const {
    if (!file.empty()) {
      args.push_back("-f");
      args.push_back(file);
    }
    return run_to_end(argv(std::move(args)), env(), box.path("kubectl"), std::chrono::seconds(30));
  }
};

// The non-empty lines of `text` (kubectl's `-o name` output, say).
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Polls `done` every 250 ms until it holds; false once `limit` has passed.
template <typename F>
bool eventually(F done, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  for (auto end = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < end;
       std::this_thread::sleep_for(std::chrono::milliseconds(250))) {
    if (done()) return true;
  }
  return done();
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// What most kubectl tests begin with: a server of its own (agent roles off) in a fresh
// sandbox, and kubectl `version` (e.g. "1.33") pointed at it.
struct KubectlSandbox {
  // `server_args` come after --disable-agent (e.g. --kube-controller-manager-arg ...).
  explicit KubectlSandbox(const std::string& version, std::vector<std::string> server_args = {})
      : server(box, with_disable_agent(std::move(server_args))),
        kubectl{box, kubectl_dir() + "/kubectl." + version} {
    REQUIRE_FALSE(kubectl_dir().empty());
    REQUIRE(server.ready == "READY=1");
  }
  Sandbox box;
  RunningServer server;
  KubectlRunner kubectl;

  // Runs kubectl; a command expected to succeed must (exit 0, nothing on stderr).
  std::string ok(std::vector<std::string> args, const std::string& file = "") const {
    auto r = kubectl(args, file);
    INFO("kubectl " << args.at(0) << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    return r.out;
  }
  static std::vector<std::string> with_disable_agent(std::vector<std::string> args) {
    args.insert(args.begin(), "--disable-agent");
    return args;
  }
  // Writes `text` to `name` in the sandbox; returns its path.
  std::string file(const std::string& name, const std::string& text) const {
    std::string path = box.path(name);
    write_file(path, text);
    return path;
  }
};

}  // namespace k3c

// Running the real kubectl of a given version against a sandboxed k3c server.
#pragma once

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "server_sandbox.h"

namespace k3c {

// The folder the kubectl on PATH resolves into holds kubectl.1.27 ... kubectl.1.33.
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

// One kubectl binary bound to a sandbox's kubeconfig.
struct KubectlRunner {
  const Sandbox& box;
  std::string binary;

  std::map<std::string, std::string> env() const {
    std::map<std::string, std::string> e = box.env();
    e["KUBECONFIG"] = box.kubeconfig();
    return e;
  }
  std::vector<std::string> argv(std::vector<std::string> args) const {
    args.insert(args.begin(), binary);
    return args;
  }
  Finished operator()(std::vector<std::string> args) const {
    return run_to_end(argv(std::move(args)), env(), box.path("kubectl"), 30s);
  }
};

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace k3c

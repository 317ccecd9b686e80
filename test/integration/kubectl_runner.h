// Running the real kubectl (the versioned binaries kubectl.1.27 ... kubectl.1.33 next to the
// kubectl on PATH) against a Sandbox's server.
#pragma once

#include <limits.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "server_sandbox.h"

namespace k3c::testing {

// The folder the kubectl on PATH resolves into.
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

struct Kubectl {
  const Sandbox& box;
  std::string binary;
  // Runs kubectl with `args`, then `-f file` when a file is given.
  Finished operator()(std::vector<std::string> args, const std::string& file = "") const {
    args.insert(args.begin(), binary);
    std::map<std::string, std::string> env = box.env();
    env["KUBECONFIG"] = box.kubeconfig();
    if (!file.empty()) {
      args.push_back("-f");
      args.push_back(file);
    }
    return run_to_end(args, env, box.path("kubectl"), 30s);
  }
};

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace k3c::testing

// Shared by the cli unit tests: a FileReader over an in-memory map (paths not in the map do
// not exist; paths in `unreadable` fail as a permission problem would) and the environment
// of an ordinary user.
#pragma once

#include <map>
#include <set>
#include <string>

#include "cli/environment.h"

namespace k3c::cli {

class FakeFileReader final : public FileReader {
 public:
  std::map<std::string, std::string> files;
  std::set<std::string> unreadable;

  Result<std::string> read(const std::string& path) const override {
    if (unreadable.contains(path)) {
      return error(Code::kInvalid, path + ": cannot open: Permission denied");
    }
    auto it = files.find(path);
    if (it == files.end()) return error(Code::kNotFound, path + ": no such file");
    return it->second;
  }
};

// A non-root user whose HOME is /home/edge, with no K3C_* variables.
inline Environment user_env() {
  Environment env;
  env.variables = {{"HOME", "/home/edge"}};
  return env;
}

}  // namespace k3c::cli

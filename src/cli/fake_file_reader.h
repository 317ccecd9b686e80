// A FileReader over an in-memory map, for the cli unit tests. Paths not in the map do not
// exist; paths in `unreadable` fail as a permission problem would.
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

}  // namespace k3c::cli

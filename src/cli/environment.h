// The seams between the command line and the machine: the process environment (variables,
// whether we run as root) and reading the config file. Tests pass fakes; run() passes the
// real ones.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::cli {

// A snapshot of the process environment. Plain data: tests fill it in directly.
struct Environment {
  std::map<std::string, std::string, std::less<>> variables;
  bool is_root = false;

  // The variable's value, or "" when it is unset.
  std::string get(std::string_view name) const;

  // The environment of this process (environ, geteuid()).
  static Environment current();
};

// Reads whole files. Implementations must be safe to call from one thread at a time.
class FileReader {
 public:
  virtual ~FileReader() = default;
  // The file's contents; kNotFound when it does not exist, another code when it cannot be
  // read.
  virtual Result<std::string> read(const std::string& path) const = 0;
};

// Reads from the real filesystem.
class LocalFileReader final : public FileReader {
 public:
  Result<std::string> read(const std::string& path) const override;
};

}  // namespace k3c::cli

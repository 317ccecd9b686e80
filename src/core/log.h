// Logging: spdlog, one line per event, each tagged with the role (or module) that wrote it.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <string_view>

namespace k3c::log {

struct Options {
  bool debug = false;  // --debug: debug level instead of info
  std::string file;    // --log: also append to this file ("" = stderr only)
};

// Sets up the sinks every role logger shares. Call once, before roles start; returns an
// error message when the log file cannot be opened ("" on success).
std::string init(const Options& options);

// A logger named after the role ("store", "apiserver", ...), writing to the shared sinks.
// Cheap to call; roles keep the pointer they get.
std::shared_ptr<spdlog::logger> for_role(std::string_view role);

}  // namespace k3c::log

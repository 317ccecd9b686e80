// The CLI11 side of the command line: `k3c [--version] server|agent [flags]` defined from the
// flag table, parsed into the settings given on the command line. Help, version and usage
// errors come back as text to print, so parsing stays a pure function.
#pragma once

#include <string>
#include <vector>

#include "cli/flag_table.h"
#include "cli/settings.h"

namespace k3c::cli {

struct ParsedArgs {
  // kExit: print `out` and `err` and exit with `exit_code` (help, version, usage errors).
  // kRun: run `command` with `settings`.
  enum class Outcome { kExit, kRun };
  Outcome outcome = Outcome::kExit;
  int exit_code = 0;
  std::string out;
  std::string err;
  Command command = Command::kServer;
  Settings settings;  // only what the command line gave
};

// `args[0]` is the program name. Usage errors exit with code 1.
ParsedArgs parse_args(const std::vector<std::string>& args);

// "k3c version v0.1.0 (abc123def456)\nkubernetes v1.32.0"
std::string version_text();

}  // namespace k3c::cli

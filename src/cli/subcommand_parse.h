// Parsing the arguments of a `k3c <tool> ...` command with CLI11 (`k3c images`, `k3c bench`):
// help and usage errors become the text to print and the exit code, as CommandOutcome.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/images_command.h"

namespace k3c::cli {

// nullopt when `args` parsed; else what to print and the exit code (0 for --help, 1 for a
// usage error).
inline std::optional<CommandOutcome> parse_subcommand(CLI::App& app,
                                                      const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    return CommandOutcome{code == 0 ? 0 : 1, out.str(), err.str()};
  }
  return std::nullopt;
}

}  // namespace k3c::cli

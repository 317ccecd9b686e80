// The command line: `k3c server`, `k3c agent`, ... (CLI11), config file and environment.
#pragma once

namespace k3c::cli {

// Parses the command line, runs the chosen command and returns the process exit code.
int run(int argc, char** argv);

}  // namespace k3c::cli

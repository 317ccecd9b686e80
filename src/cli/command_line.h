// The whole command line as one pure function: argv, the environment and the config file in,
// a typed config (or text to print and an exit code) out. This is where the sources are
// layered as in k3s: built-in defaults < environment variables < config file < command-line flags.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/config.h"
#include "cli/environment.h"
#include "cli/flag_table.h"
#include "cli/settings.h"

namespace k3c::cli {

inline constexpr const char* kDefaultConfigFile = "/etc/k3c/config.yaml";

struct Invocation {
  // kExit: print `out` to stdout and `err` to stderr, exit with `exit_code`.
  enum class Kind { kExit, kServer, kAgent };
  Kind kind = Kind::kExit;
  int exit_code = 0;
  std::string out;
  std::string err;
  Status status;  // why parsing failed, when it did (not set for help and usage errors)
  std::optional<ServerConfig> server;  // set for kServer
  std::optional<AgentConfig> agent;    // set for kAgent
};

// `args[0]` is the program name. Errors in flags, environment or config file give kExit with
// exit code 1 and a one-line message on `err`.
Invocation parse_command_line(const std::vector<std::string>& args, const Environment& env,
                              const FileReader& files);

struct LayeredSettings {
  Settings settings;
  std::string config_file;  // the file read; "" when none was
};

// Layers the config file (the one --config or K3C_CONFIG_FILE names, else the default path,
// which may be missing), the environment and `command_line` for `command`.
Result<LayeredSettings> layer_settings(Command command, const Settings& command_line,
                                       const Environment& env, const FileReader& files);

// Shorthands for tests: the arguments after `k3c server` / `k3c agent`.
Result<ServerConfig> parse_server(const std::vector<std::string>& args, const Environment& env,
                                  const FileReader& files);
Result<AgentConfig> parse_agent(const std::vector<std::string>& args, const Environment& env,
                                const FileReader& files);

}  // namespace k3c::cli

// Layering of the settings sources and the command line as a whole (see command_line.h).
#include "cli/command_line.h"

#include "cli/flags.h"

namespace k3c::cli {
namespace {

// The config file to read and whether someone named it (then it must exist).
struct ConfigChoice {
  std::string path;
  bool explicit_choice = false;
};

ConfigChoice choose_config_file(const Settings& command_line, const Environment& env) {
  if (auto it = command_line.find("config"); it != command_line.end() && !it->second.empty()) {
    return {it->second.back().text, true};
  }
  if (std::string from_env = env.get("K3C_CONFIG_FILE"); !from_env.empty()) {
    return {from_env, true};
  }
  return {kDefaultConfigFile, false};
}

}  // namespace

Result<LayeredSettings> layer_settings(Command command, const Settings& command_line,
                                       const Environment& env, const FileReader& files) {
  // k3s's order: the environment replaces defaults, the config file acts as if its keys were
  // flags (so it beats the environment), and real flags beat both.
  LayeredSettings layered;
  layered.settings = settings_from_environment(env, command);
  const ConfigChoice choice = choose_config_file(command_line, env);
  if (!choice.path.empty()) {  // --config "" reads no file
    Result<std::string> text = files.read(choice.path);
    if (text.is_ok()) {
      ASSIGN_OR_RETURN(Settings from_file, settings_from_yaml(*text, choice.path, command));
      layered.settings = overlay(std::move(layered.settings), std::move(from_file));
      layered.config_file = choice.path;
    } else if (text.status().code() != Code::kNotFound || choice.explicit_choice) {
      return error(Code::kInvalid, "config file " + text.status().message());
    }
  }
  layered.settings = overlay(std::move(layered.settings), command_line);
  return layered;
}

Invocation parse_command_line(const std::vector<std::string>& args, const Environment& env,
                              const FileReader& files) {
  Invocation invocation;
  ParsedArgs parsed = parse_args(args);
  if (parsed.outcome == ParsedArgs::Outcome::kExit) {
    invocation.exit_code = parsed.exit_code;
    invocation.out = std::move(parsed.out);
    invocation.err = std::move(parsed.err);
    return invocation;
  }
  auto fail = [&](const Status& status) {
    invocation.exit_code = 1;
    invocation.status = status;
    invocation.err =
        "k3c " + std::string(command_name(parsed.command)) + ": " + status.message() + "\n";
    return invocation;
  };
  Result<LayeredSettings> layered = layer_settings(parsed.command, parsed.settings, env, files);
  if (!layered.is_ok()) return fail(layered.status());
  if (parsed.command == Command::kServer) {
    Result<ServerConfig> config = server_config_from(layered->settings, env);
    if (!config.is_ok()) return fail(config.status());
    invocation.kind = Invocation::Kind::kServer;
    invocation.server = std::move(config).value();
    invocation.server->node.config_file = layered->config_file;
  } else {
    Result<AgentConfig> config = agent_config_from(layered->settings, env);
    if (!config.is_ok()) return fail(config.status());
    invocation.kind = Invocation::Kind::kAgent;
    invocation.agent = std::move(config).value();
    invocation.agent->node.config_file = layered->config_file;
  }
  return invocation;
}

namespace {

Invocation parse_subcommand(const char* command, const std::vector<std::string>& args,
                            const Environment& env, const FileReader& files) {
  std::vector<std::string> argv = {"k3c", command};
  argv.insert(argv.end(), args.begin(), args.end());
  return parse_command_line(argv, env, files);
}

Status failure_of(const Invocation& invocation) {
  if (!invocation.status.is_ok()) return invocation.status;
  return error(Code::kInvalid, invocation.err + invocation.out);  // usage error or help
}

}  // namespace

Result<ServerConfig> parse_server(const std::vector<std::string>& args, const Environment& env,
                                  const FileReader& files) {
  Invocation invocation = parse_subcommand("server", args, env, files);
  if (invocation.kind != Invocation::Kind::kServer) return failure_of(invocation);
  return std::move(*invocation.server);
}

Result<AgentConfig> parse_agent(const std::vector<std::string>& args, const Environment& env,
                                const FileReader& files) {
  Invocation invocation = parse_subcommand("agent", args, env, files);
  if (invocation.kind != Invocation::Kind::kAgent) return failure_of(invocation);
  return std::move(*invocation.agent);
}

}  // namespace k3c::cli

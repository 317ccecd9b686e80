// CLI11 definitions of k3c's commands and flags, derived from the flag table (see flags.h).
#include "cli/flags.h"

#include <CLI/CLI.hpp>
#include <sstream>
#include <utility>

#include "core/version.h"

namespace k3c::cli {
namespace {

using Bound = std::vector<std::pair<const FlagSpec*, CLI::Option*>>;

// "CIDR (default 10.42.0.0/16) [$K3C_X]": what the help shows after the flag's name.
std::string option_text(const FlagSpec& spec) {
  std::string text(spec.value_name);
  if (!spec.default_text.empty()) {
    text += (text.empty() ? "" : " ") + std::string("(default: ") + std::string(spec.default_text) +
            ")";
  }
  if (!spec.env.empty())
    text += (text.empty() ? "" : " ") + std::string("[$") + std::string(spec.env) + "]";
  return text;
}

Bound define_flags(CLI::App& command_app, Command command) {
  Bound bound;
  for (const FlagSpec& spec : all_flags()) {
    if (!spec.taken_by(command)) continue;
    std::string names = "--" + std::string(spec.name);
    if (!spec.short_name.empty()) names = "-" + std::string(spec.short_name) + "," + names;
    const std::string help(spec.help);
    CLI::Option* option = spec.kind == FlagKind::kBool ? command_app.add_flag(names, help)
                                                       : command_app.add_option(names, help);
    option->group(std::string(spec.group));
    const std::string text = option_text(spec);
    if (!text.empty()) option->option_text(text);
    // As in k3s, a single-valued flag given twice takes the last value; a list flag keeps all.
    option->multi_option_policy(spec.kind == FlagKind::kList ? CLI::MultiOptionPolicy::TakeAll
                                                             : CLI::MultiOptionPolicy::TakeLast);
    bound.emplace_back(&spec, option);
  }
  return bound;
}

Settings settings_from(const Bound& bound) {
  Settings settings;
  for (const auto& [spec, option] : bound) {
    if (option->count() == 0) continue;
    const std::string origin = "flag --" + std::string(spec->name);
    Setting setting;
    if (spec->kind == FlagKind::kList) {
      for (const std::string& raw : option->results()) {
        for (std::string& piece : split_commas(raw)) setting.push_back({std::move(piece), origin});
      }
    } else {
      // Raw text, booleans included ("--debug=maybe"): config.cpp checks every value the
      // same way, whichever source it came from.
      setting.push_back({option->results().back(), origin});
    }
    settings[std::string(spec->name)] = std::move(setting);
  }
  return settings;
}

constexpr const char* kFooter =
    "Every flag can also be set in the config file, under its long name without the "
    "dashes;\nflags shown with [$VAR] can also be set through that environment variable. "
    "A flag on the\ncommand line overrides the environment, which overrides the config file. "
    "See\ndoc/configuration.md.";

}  // namespace

std::string version_text() {
  return std::string("k3c version ") + version::kVersion + " (" + version::kGitCommit +
         ")\nkubernetes " + version::kKubernetesVersion;
}

ParsedArgs parse_args(const std::vector<std::string>& args) {
  CLI::App app("k3c: a Kubernetes-compatible orchestrator in one executable", "k3c");
  app.set_version_flag("-v,--version", version_text(), "Print the version and exit");
  app.require_subcommand(1, 1);
  app.get_formatter()->column_width(44);
  CLI::App* server = app.add_subcommand(
      "server", "Run the control plane (and, unless --disable-agent, a node) on this machine");
  CLI::App* agent = app.add_subcommand("agent", "Run a node that joins an existing server");
  // Listed for --help only: cli::run hands `k3c images ...` to run_images() before parsing.
  CLI::App* images = app.add_subcommand(
      "images", "Manage this node's image store (import, ls, rm, pull); see k3c images --help");
  images->prefix_command();
  server->footer(kFooter);
  agent->footer(kFooter);
  const Bound server_flags = define_flags(*server, Command::kServer);
  const Bound agent_flags = define_flags(*agent, Command::kAgent);

  ParsedArgs parsed;
  // CLI11 takes the arguments last-first.
  std::vector<std::string> reversed(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    parsed.exit_code = app.exit(e, out, err);
    // Usage errors exit 1 as in k3s; help and version exit 0.
    if (parsed.exit_code != 0) parsed.exit_code = 1;
    parsed.out = out.str();
    parsed.err = err.str();
    return parsed;
  }
  if (images->parsed()) {
    parsed.exit_code = 1;
    parsed.err = "k3c images: handled by cli::run, not by the server/agent parser\n";
    return parsed;
  }
  parsed.outcome = ParsedArgs::Outcome::kRun;
  parsed.command = server->parsed() ? Command::kServer : Command::kAgent;
  parsed.settings = settings_from(server->parsed() ? server_flags : agent_flags);
  return parsed;
}

}  // namespace k3c::cli

// `k3c bench hollow-nodes`: the scale tool (roles/hollow/hollow_nodes.h) against a cluster
// that a kubeconfig names, over HTTPS with the kubeconfig's credentials. It runs until
// SIGTERM or SIGINT, then stops heartbeating and exits 0.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/environment.h"
#include "cli/images_command.h"
#include "roles/hollow/hollow_settings.h"

namespace k3c::cli {

struct HollowCommand {
  std::string kubeconfig;
  hollow::HollowSettings settings;
};

// The arguments after `k3c bench`. Either a command to run or what to print and the exit
// code (help, or a usage error: exit code 1 with a one-line message).
struct BenchParse {
  std::optional<HollowCommand> hollow_nodes;
  CommandOutcome exit;
};
BenchParse parse_bench(const std::vector<std::string>& args, const Environment& env);

// Parses and runs `k3c bench ...`; the process exit code.
int run_bench(const std::vector<std::string>& args, const Environment& env);

}  // namespace k3c::cli

// `k3c`: hands argv, the process environment and the real filesystem to the command line
// parser, then runs the chosen command.
#include "cli/cli.h"

#include <cstdio>
#include <string>
#include <vector>

#include "cli/bench_command.h"
#include "cli/command_line.h"
#include "cli/images_command.h"
#include "cli/server.h"

namespace k3c::cli {

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  const Environment env = Environment::current();
  // `k3c images` works on the local image store only: no config file, no roles.
  if (args.size() >= 2 && args[1] == "images") {
    CommandOutcome outcome = run_images({args.begin() + 2, args.end()}, env);
    std::fputs(outcome.out.c_str(), stdout);
    std::fputs(outcome.err.c_str(), stderr);
    return outcome.exit_code;
  }
  // `k3c bench ...`: tools that drive a cluster from outside, through a kubeconfig.
  if (args.size() >= 2 && args[1] == "bench") return run_bench({args.begin() + 2, args.end()}, env);
  const LocalFileReader files;
  Invocation invocation = parse_command_line(args, env, files);
  switch (invocation.kind) {
    case Invocation::Kind::kServer:
      return run_server(*invocation.server, env);
    case Invocation::Kind::kAgent:
      return run_agent(*invocation.agent, env);
    case Invocation::Kind::kExit:
      break;
  }
  std::fputs(invocation.out.c_str(), stdout);
  std::fputs(invocation.err.c_str(), stderr);
  return invocation.exit_code;
}

}  // namespace k3c::cli

// `k3c server` and `k3c agent`: what each command does with its typed config.
#pragma once

#include <string>
#include <vector>

#include "cli/config.h"
#include "cli/environment.h"

namespace k3c::cli {

// Runs the server until SIGTERM or SIGINT: logging, data dir, roles in order, READY=1 to the
// service manager ($NOTIFY_SOCKET in `env`), then a reverse stop with a deadline. Returns the
// exit code: 0 after a graceful stop, 1 when something failed before the roles were up.
// Call from main()'s thread before any other thread exists (it installs the signal mask).
int run_server(const ServerConfig& config, const Environment& env);

// The worker roles are not built: prints so and returns 1.
int run_agent(const AgentConfig& config);

// The roles this server config asks for that are not built yet, in start order.
std::vector<std::string> roles_not_built(const ServerConfig& config);

}  // namespace k3c::cli

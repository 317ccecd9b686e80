// `k3c server` and `k3c agent`: what each command does with its typed config.
#pragma once

#include <string>
#include <vector>

#include "cli/config.h"
#include "cli/environment.h"
#include "core/lifecycle.h"
#include "core/log.h"
#include "core/signals.h"

namespace k3c::cli {

// Runs the server until SIGTERM or SIGINT: logging, data dir, roles in order, READY=1 to the
// service manager ($NOTIFY_SOCKET in `env`), then a reverse stop with a deadline. Returns the
// exit code: 0 after a graceful stop, 1 when something failed before the roles were up.
// Call from main()'s thread before any other thread exists (it installs the signal mask).
int run_server(const ServerConfig& config, const Environment& env);

// Joins the server (join.h), then runs the worker roles until SIGTERM or SIGINT, as
// run_server does; returns 1 when the join or a role's start failed.
int run_agent(const AgentConfig& config, const Environment& env);

// What both commands do first, from main()'s thread before any other thread exists: the
// signal mask, logging (as role `command`), the data dir.
Result<std::unique_ptr<ShutdownSignals>> start_process(std::string_view command,
                                                       const NodeConfig& node);
// Starts `roles` in order, tells the service manager READY=1, waits for a stop signal and
// stops them in reverse with a deadline. 0 after a graceful stop, 1 when a start failed.
int run_roles(std::vector<std::shared_ptr<Role>> roles, const ShutdownSignals& signals,
              const Environment& env, const std::vector<std::string>& missing,
              const std::shared_ptr<spdlog::logger>& logger);

// The roles this server config asks for that are not built yet, in start order.
std::vector<std::string> roles_not_built(const ServerConfig& config);

}  // namespace k3c::cli

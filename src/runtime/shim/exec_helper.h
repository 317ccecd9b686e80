// Starting `k3c shim exec` (shim_exec.cpp) from k3c: the helper gets the ProcessSpec on fd 3
// and a report pipe on fd 4; the caller maps the process's stdio (and, for a terminal, the
// console socket on fd 5). Shared by exec_in_container and the interactive exec session.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "runtime/internal/tree_at.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime::shim {

inline constexpr int kExecConsoleFd = 5;

struct ExecHelper {
  pid_t pid = -1;
  internal::Fd report;  // read end: "ok\n" once the process exec'd, or the error
};

// Spawns the helper for the running container of `state_dir` with `fds` (caller's fd ->
// helper's fd number: 0, 1, 2, kExecConsoleFd) and sends it `process`. kConflict when the
// container is not running.
Result<ExecHelper> spawn_exec_helper(const std::string& state_dir, const ProcessSpec& process,
                                     const std::vector<std::pair<int, int>>& fds);

}  // namespace k3c::runtime::shim

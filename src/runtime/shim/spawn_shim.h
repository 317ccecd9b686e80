// Starting the shim binary from the (multi-threaded) k3c process: posix_spawn, which execs
// at once in the new process, with given fds placed at given numbers and every other
// signal disposition and mask reset.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::shim {

// Runs `binary` with `args` (args[0] included). `fds` maps a caller's fd to the fd number it
// gets in the new process; 0, 1 and 2 not mapped are /dev/null. `new_session`: setsid().
Result<pid_t> spawn_shim(const std::string& binary, const std::vector<std::string>& args,
                         const std::vector<std::pair<int, int>>& fds, bool new_session);

// Writes a shim mode's report ("ok\n", or "<code>\n<message>" for an error) and closes `fd`.
void write_shim_report(int fd, const Status& status);

// Reads a shim's report ("ok\n" or "<code>\n<message>", see container_init.h) until it
// closes the pipe; kTimeout after `timeout_ms` without a byte.
Status read_shim_report(int fd, int timeout_ms);

// The exit status of a spawned process as a shell shows it (128+signal when killed).
int wait_exit_code(pid_t pid);

}  // namespace k3c::runtime::shim

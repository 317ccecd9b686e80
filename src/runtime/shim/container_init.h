// The container's process between fork and exec: joins or creates its namespaces, builds its
// root filesystem, takes its identity and execs. It runs in the shim's child (a
// single-threaded process), and reports a failure before exec as one message on a CLOEXEC
// pipe, so a successful exec is seen as end-of-file on that pipe.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime::shim {

// The fds the shim prepared for its child.
struct ChildFds {
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  // The process opens a terminal in its own devpts after pivot_root and sends the master
  // over console_fd (container_terminal.h); stdin/stdout/stderr_fd are then -1.
  bool tty = false;
  int console_fd = -1;
  int error_fd = -1;  // write end of the CLOEXEC error pipe
  int go_fd = -1;     // read end: one byte once the shim put the process into its cgroups
  int net_fd = -1, ipc_fd = -1, uts_fd = -1;  // namespaces to join (kJoin), else -1
};

// The container's process: never returns (execs or _exits after reporting on error_fd).
[[noreturn]] void run_container_child(const LaunchSpec& spec, const ChildFds& fds, int last_cap);

// A session of its own with stdio on the given fds (a terminal made the controlling one),
// for the container's process and an exec'd one.
Status attach_stdio(const ChildFds& fds);

// The last steps, shared with exec_in_container's process: seccomp, identity, chdir, PATH
// lookup, execve. Returns only on failure. `parent_death_kill`: keep PR_SET_PDEATHSIG so the
// process dies with its parent (exec probes), else clear it (a container outlives its shim).
Status exec_process(const ProcessSpec& process, int last_cap, bool parent_death_kill);

// The executable `name` resolves to: a name with a '/' as is, else the first executable
// file in $PATH of `env` (a default PATH when unset). Error messages are runc's.
Result<std::string> find_executable(const std::string& name, const std::vector<std::string>& env);

// Writes `status` to `fd` as "<code>\n<message>" and exits with 127.
[[noreturn]] void report_child_error(int fd, const Status& status);

// The name (comm) the process carries until its exec replaces it.
inline constexpr char kInitComm[] = "k3c-init";

// After end-of-file on the error pipe with nothing written: whether the process died before
// its exec (killed, crashed) rather than exec'd. Its comm tells, even as a zombie.
bool exited_before_exec(pid_t pid);

// Parses what report_child_error wrote.
Status parse_child_error(const std::string& bytes);

}  // namespace k3c::runtime::shim

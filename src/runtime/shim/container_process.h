// A container as a Linux process: the launch of one container process in its own namespaces
// on an overlayfs root, under a small shim process that survives k3c (kill -9, restart,
// upgrade), holds the container's stdio, writes its CRI log and records its exit status.
//
// The shim is the k3c binary re-executed (/proc/self/exe) as `k3c shim <state_dir> <fd>`. It
// detaches (own session, reparented away from k3c), starts the container process and waits
// for it. All state lives in files under `state_dir` (doc/runtime.md, "Containers and
// shims"), so that a new k3c process re-adopts running containers with read_process_state().
//
// These functions are blocking and thread-safe (no shared state besides the files; callers
// serialise calls for one state_dir). They spawn helpers with posix_spawn, never with a bare
// fork of the (multi-threaded) caller.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime {

enum class NamespaceMode { kNew, kHost, kJoin };

struct NamespaceSetting {
  NamespaceMode mode = NamespaceMode::kNew;
  std::string path;  // kJoin: a pinned namespace file (bind mount) or /proc/<pid>/ns/<x>
};

// The process to run, in the container's view (paths inside its root).
struct ProcessSpec {
  std::vector<std::string> args;  // argv; args[0] is looked up in the container's $PATH
  std::vector<std::string> env;   // "NAME=value"
  std::string cwd = "/";          // created when missing (as runc does)
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> groups;  // supplementary groups
  // The capabilities to keep ("CAP_CHOWN" spelling; "ALL" for every one): the bounding,
  // permitted and effective sets. Inheritable and ambient stay empty, as containerd sets them
  // (so a non-root user gets no effective capabilities, as upstream).
  std::vector<std::string> capabilities;
  bool no_new_privs = false;
  SeccompProfile seccomp = SeccompProfile::kUnconfined;
  // kLocalhost: the profile's JSON text, kept with the container's spec as runc keeps it in
  // config.json, so its exec'd processes get the profile it started with.
  std::string seccomp_profile;
  // The compiled filter (an array of struct sock_filter, as bytes), when the caller compiled
  // it already: LinuxRuntime does, once per profile and capability set (SeccompPrograms), so a
  // container's process and its execs only install it. Empty: the process compiles it.
  std::string seccomp_program;
  bool tty = false;    // stdin/stdout/stderr on a pseudo-terminal the shim holds
  bool stdin = false;  // an open stdin (a pipe the shim holds) instead of /dev/null
  // The shim closes the container's stdin once the first attached client that sent stdin
  // ends it (no terminal only, as containerd).
  bool stdin_once = false;
};

struct LaunchSpec {
  std::string id;  // the container id, for messages
  // The container's state directory. launch_container creates it (it must not exist, or be
  // empty) and owns it: spec, pid and exit files, the overlay upper/work dirs, the rootfs
  // mount point. On a failed launch it is removed again.
  std::string state_dir;
  std::vector<std::string> lower_dirs;  // overlayfs lower dirs, top first (image snapshot)
  bool read_only_rootfs = false;
  std::vector<Mount> mounts;            // bind mounts after the rootfs, in order
  NamespaceSetting net, ipc, uts, pid;  // the mount namespace is always new
  std::string hostname;                 // set when uts is kNew (empty: leave as is)
  bool privileged = false;              // /sys read-write, no masked or read-only /proc paths
  ProcessSpec process;
  // The shim writes the container's pid into each of these (cgroup.procs / tasks files)
  // before the container's process execs.
  std::vector<std::string> cgroup_procs_files;
  // Written to /proc/<pid>/oom_score_adj before the exec (the kubelet's per-QoS value:
  // -997 Guaranteed, 1000 BestEffort, ...); unset: inherited from k3c.
  std::optional<int> oom_score_adj;
  std::string log_path;  // the CRI log file (appended to; its directory must exist)
  // The executable run as the shim; the running k3c binary by default.
  std::string shim_binary = "/proc/self/exe";
};

struct ProcessState {
  int shim_pid = 0;
  int pid = 0;  // the container's process, in k3c's pid namespace
  WallTime started_at{};
  bool exited = false;
  int exit_code = 0;  // as the kubelet reports it: 128+signal when killed by a signal
  int signal = 0;     // the signal that killed it, 0 when it exited
  WallTime finished_at{};
  // Set when the shim is gone (killed): either the container still runs, unsupervised (no
  // logs, no exit record; signal_container still reaches it), or it has gone too and its
  // exit is unknown (exited, exit_code 255).
  std::string error;
};

// Starts the container. Returns once its process has exec'd, or an error (kInvalid with a
// message shaped as runc/containerd word it, e.g. `exec: "foo": executable file not found in
// $PATH`) with nothing left behind (no process, no mount, no state_dir).
Result<ProcessState> launch_container(const LaunchSpec& spec);

// The state from the files in `state_dir`; checks that the shim of a running container is
// still alive. Works in a new k3c process (re-adoption). kNotFound when there is no container.
Result<ProcessState> read_process_state(const std::string& state_dir);

// Sends `sig` to the container's process; kOk when it has already exited (nothing to do).
Status signal_container(const std::string& state_dir, int sig);

// Asks the shim to reopen the log file (after the kubelet rotated it: CRI ReopenContainerLog).
Status reopen_container_log(const std::string& state_dir);

// After the container exited: removes its state directory (overlay upper dir included).
// kConflict while the container still runs. kOk when already gone.
Status remove_container_files(const std::string& state_dir);

// Runs `process` in the running container: its mount, pid, net, ipc and uts namespaces, its
// cgroups, with the identity, capabilities and no_new_privs of `process`. Captures stdout and
// stderr (up to 1 MiB each); kills it after `timeout` (timed_out is then set). kInvalid when
// it cannot start (same messages as launch_container), kNotFound / kConflict when the
// container does not run.
Result<ExecResult> exec_in_container(const std::string& state_dir, const ProcessSpec& process,
                                     std::chrono::milliseconds timeout);

// Starts `process` in the running container as an interactive session (kubectl exec): its
// stdin/stdout/stderr on pipes as `options` asks, or (tty) on a terminal opened inside the
// container (its own devpts), the process made its session leader with the terminal as its
// controlling one. The session's cancel() kills the process's whole session (a shell's
// background jobs too) and reaps the helper. Errors as exec_in_container.
Result<std::unique_ptr<StreamSession>> start_exec_session(const std::string& state_dir,
                                                          const ProcessSpec& process,
                                                          const StreamOptions& options);

// Attaches to the container's main process through its shim's attach socket (kubectl
// attach): from now on its output is copied into the session's stdout/stderr (one stream
// with a terminal, `tty` as the container was created), the session's stdin into the
// container's (when it was created with stdin). wait() returns the container's exit code,
// or 0 when the end of the session's stdin detached it (no stdinOnce, as containerd);
// cancel() detaches. kNotImplemented for a container whose shim has no attach socket (one
// started by an older k3c).
Result<std::unique_ptr<StreamSession>> attach_container(const std::string& state_dir,
                                                        const StreamOptions& options, bool tty);

// The shim mode, `k3c shim ...`: dispatched in main() before anything else.
int shim_main(int argc, char** argv);

}  // namespace k3c::runtime

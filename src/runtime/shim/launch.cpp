// The k3c side of the shim: launching a container and reading, signalling and removing it
// through its state directory (see container_process.h).
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/files.h"
#include "runtime/shim/container_init.h"
#include "runtime/shim/container_process.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/rootfs_mounts.h"
#include "runtime/shim/seccomp_profile.h"
#include "runtime/shim/spawn_shim.h"
#include "runtime/shim/state_files.h"

namespace k3c::runtime {
namespace {

using namespace shim;

constexpr int kLaunchTimeoutMs = 120 * 1000;

Status validate(const LaunchSpec& spec) {
  if (spec.id.empty()) return error(Code::kInvalid, "the container id is empty");
  if (spec.state_dir.empty() || spec.state_dir.front() != '/') {
    return error(Code::kInvalid, "the state dir must be an absolute path");
  }
  if (spec.process.args.empty()) return error(Code::kInvalid, "no command to run");
  ASSIGN_OR_RETURN(uint64_t caps, capability_mask(spec.process.capabilities, last_capability()));
  // A profile that does not compile fails the launch here, not in the container's process
  // (LinuxRuntime compiled it already: nothing to do then).
  if (spec.process.seccomp_program.empty()) {
    RETURN_IF_ERROR(seccomp_filter_for(spec.process, caps).status());
  }
  RETURN_IF_ERROR(overlay_options(spec).status());
  for (const Mount& m : spec.mounts) {
    if (m.container_path.empty() || m.container_path.front() != '/') {
      return error(Code::kInvalid, "mount path \"" + m.container_path + "\" is not absolute");
    }
  }
  for (const NamespaceSetting* ns : {&spec.net, &spec.ipc, &spec.uts, &spec.pid}) {
    if (ns->mode == NamespaceMode::kJoin && ns->path.empty()) {
      return error(Code::kInvalid, "a namespace to join has no path");
    }
  }
  if (!spec.log_path.empty()) {
    const int fd = open(spec.log_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    if (fd < 0) return errno_status("open the log file " + spec.log_path, errno);
    close(fd);
  }
  return Status::ok();
}

Status make_state_dir(const LaunchSpec& spec) {
  auto existing = list_dir(spec.state_dir);
  if (existing.is_ok() && !existing->empty()) {
    return error(Code::kAlreadyExists, "the state dir " + spec.state_dir + " is in use");
  }
  RETURN_IF_ERROR(make_dirs(spec.state_dir, 0700));
  for (const char* sub : {"/upper", "/work", "/rootfs"}) {
    RETURN_IF_ERROR(make_dirs(spec.state_dir + sub, 0755));
  }
  return write_spec_file(spec.state_dir, spec);
}

// Whether `pid` is the shim of `state_dir` (its command line names the directory).
bool shim_alive(int pid, const std::string& state_dir) {
  auto cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline", 64 * 1024);
  if (!cmdline.is_ok()) return false;
  return cmdline->find(std::string("shim") + '\0' + "run" + '\0' + state_dir + '\0') !=
         std::string::npos;
}

}  // namespace

Result<ProcessState> launch_container(const LaunchSpec& spec) {
  RETURN_IF_ERROR(validate(spec));
  RETURN_IF_ERROR(make_state_dir(spec));
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    const Status status = errno_status("pipe", errno);
    [[maybe_unused]] Status removed = remove_tree(spec.state_dir);
    return status;
  }
  auto spawned =
      spawn_shim(spec.shim_binary, {"k3c", "shim", "run", spec.state_dir}, {{report[1], 3}}, true);
  close(report[1]);
  Status status = spawned.status();
  if (spawned.is_ok()) {
    wait_exit_code(*spawned);  // the first shim process exits once it has detached
    status = read_shim_report(report[0], kLaunchTimeoutMs);
  }
  close(report[0]);
  if (status.code() == Code::kTimeout) {
    // A stuck shim: kill it; its container process, not exec'd yet, dies with it.
    auto pid_text = read_file(spec.state_dir + "/" + kShimPidFile, 64);
    const int pid = pid_text.is_ok() ? atoi(pid_text->c_str()) : 0;
    if (pid > 0 && shim_alive(pid, spec.state_dir)) kill(pid, SIGKILL);
  }
  if (!status.is_ok()) {
    // The shim is gone; the container's mounts lived in its own mount namespace only.
    [[maybe_unused]] Status removed = remove_tree(spec.state_dir);
    return status;
  }
  return read_process_state(spec.state_dir);
}

Result<ProcessState> read_process_state(const std::string& state_dir) {
  auto start = read_start_record(state_dir);
  if (!start.is_ok()) {
    if (start.status().code() == Code::kNotFound) {
      return error(Code::kNotFound, "no container in " + state_dir);
    }
    return start.status();
  }
  ProcessState state;
  state.shim_pid = start->shim_pid;
  state.pid = start->pid;
  state.started_at = wall_time_of(start->started_at_ns);
  auto exited = read_exit_record(state_dir);
  if (!exited.is_ok() && !shim_alive(state.shim_pid, state_dir)) {
    exited = read_exit_record(state_dir);  // it may have written the record and left since
    if (!exited.is_ok()) {
      const std::string gone = "the shim (pid " + std::to_string(state.shim_pid) + ") is gone";
      if (start->start_ticks != 0 && process_start_ticks(state.pid) == start->start_ticks) {
        // Still running, unsupervised: its output is lost and its exit will not be recorded.
        state.error = gone + "; the container runs on without log collection";
        return state;
      }
      state.exited = true;
      state.exit_code = 255;
      state.error = gone + " and recorded no exit status";
      return state;
    }
  }
  if (exited.is_ok()) {
    state.exited = true;
    state.exit_code = exited->exit_code;
    state.signal = exited->signal;
    state.finished_at = wall_time_of(exited->finished_at_ns);
  }
  return state;
}

Status signal_container(const std::string& state_dir, int sig) {
  ASSIGN_OR_RETURN(StartRecord start, read_start_record(state_dir));
  if (read_exit_record(state_dir).is_ok()) return Status::ok();  // exited: nothing to do
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, start.pid, 0));
  if (pidfd < 0) return Status::ok();  // no such process: it exited
  // With the shim alive, the exit is recorded before the pid is reaped: no record now means
  // the pid held by pidfd is the container's. Without the shim (killed), the start time
  // recorded for the pid says whether it is still the same process.
  const bool ours =
      !read_exit_record(state_dir).is_ok() &&
      (shim_alive(start.shim_pid, state_dir) ||
       (start.start_ticks != 0 && process_start_ticks(start.pid) == start.start_ticks));
  Status status;
  if (ours && syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) != 0 && errno != ESRCH) {
    status = errno_status("signal the container", errno);
  }
  close(pidfd);
  return status;
}

Status reopen_container_log(const std::string& state_dir) {
  ASSIGN_OR_RETURN(ProcessState state, read_process_state(state_dir));
  if (state.exited) return Status::ok();
  if (kill(state.shim_pid, SIGUSR1) != 0 && errno != ESRCH) {
    return errno_status("signal the shim", errno);
  }
  return Status::ok();
}

Status remove_container_files(const std::string& state_dir) {
  auto state = read_process_state(state_dir);
  if (state.is_ok() && !state->exited) {
    return error(Code::kConflict, "the container in " + state_dir + " is still running");
  }
  // The rootfs was mounted in the container's own mount namespace only; this is for a
  // mount some other tool propagated here.
  const std::string rootfs = state_dir + "/rootfs";
  if (umount2(rootfs.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
    return errno_status("unmount " + rootfs, errno);
  }
  return remove_tree(state_dir);
}

}  // namespace k3c::runtime

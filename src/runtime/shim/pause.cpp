// The pod's PID-namespace owner (see pause_process.h): the `k3c shim pause` mode and the
// k3c side that starts, finds and stops it.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "runtime/files.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/pause_process.h"
#include "runtime/shim/shim_modes.h"
#include "runtime/shim/spawn_shim.h"
#include "runtime/shim/state_files.h"

namespace k3c::runtime {
namespace {

using namespace shim;

constexpr int kStartTimeoutMs = 10 * 1000;
constexpr int kKillWaitMs = 5 * 1000;
constexpr size_t kMaxCmdline = 64 * 1024;
constexpr char kMode[] = "pause";

std::string pause_dir(const std::string& sandbox_dir) { return sandbox_dir + "/pause"; }

// The command line of a pause process: "k3c\0shim\0pause\0<dir>\0".
std::string mode_marker() { return std::string("shim") + '\0' + kMode + '\0'; }

// The sandbox directory named by `pid`'s command line when it is a pause process, else "".
std::string pause_sandbox_of(int pid) {
  auto cmdline = read_file("/proc/" + std::to_string(pid) + "/cmdline", kMaxCmdline);
  if (!cmdline.is_ok()) return {};
  const std::string marker = mode_marker();
  const size_t at = cmdline->find(marker);
  if (at == std::string::npos) return {};
  const size_t begin = at + marker.size();
  const size_t end = cmdline->find('\0', begin);
  return end == std::string::npos ? std::string() : cmdline->substr(begin, end - begin);
}

// SIGKILL to `pid` if it is still the pause process of `sandbox_dir` (checked through a pidfd,
// so a recycled pid is never hit), then waits for its exit.
Status kill_pause(int pid, const std::string& sandbox_dir) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return Status::ok();  // gone
  Status status;
  if (pause_sandbox_of(pid) == sandbox_dir) {
    if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) != 0 && errno != ESRCH) {
      status = errno_status("signal the pause process", errno);
    } else {
      // A pidfd polls readable once the process has exited (it is then another's zombie).
      pollfd p{pidfd, POLLIN, 0};
      while (poll(&p, 1, kKillWaitMs) < 0 && errno == EINTR) {
      }
      if (!(p.revents & POLLIN)) {
        status = error(Code::kTimeout,
                       "the pause process " + std::to_string(pid) + " did not exit after SIGKILL");
      }
    }
  }
  close(pidfd);
  return status;
}

// PID 1 of the pod's namespace. Single-threaded (forked from the freshly exec'd pause mode):
// only system calls. Signals it does not wait for keep their default action, which the
// kernel does not deliver to a namespace's init from inside the namespace; SIGKILL from
// outside ends it (and with it every process of the namespace).
[[noreturn]] void pause_main(const std::string& root, int last_cap, int ready_fd) {
  setsid();
  prctl(PR_SET_NAME, "pause", 0, 0, 0);
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT}) sigaddset(&mask, sig);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  // Nothing of the host through /proc/1/root, /proc/1/cwd or (not dumpable) /proc/1/fd, and
  // no capability left (root without any, no_new_privs) for a process that would get at it.
  if (chroot(root.c_str()) != 0 || chdir("/") != 0) _exit(1);
  ProcessSpec nobody_special;  // uid 0, gid 0, no groups, no capabilities
  nobody_special.no_new_privs = true;
  if (!apply_identity(nobody_special, last_cap).is_ok()) _exit(1);
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  [[maybe_unused]] ssize_t n = write(ready_fd, "x", 1);
  close_range(0, ~0U, 0);  // stdio is /dev/null; the ready pipe is done
  for (;;) {
    const int sig = sigwaitinfo(&mask, nullptr);
    if (sig == SIGTERM || sig == SIGINT) _exit(0);
    if (sig == SIGCHLD) {
      while (waitpid(-1, nullptr, WNOHANG) > 0) {
      }
    }
  }
}

}  // namespace

namespace shim {

// `k3c shim pause <dir>`: makes the PID namespace, forks its PID 1, records it, reports on
// fd 3 and exits, so that the pause process is reparented away from k3c.
int shim_pause(const std::string& sandbox_dir) {
  const int report_fd = 3;
  close_range(report_fd + 1, ~0U, 0);  // whatever k3c had open is not ours
  fcntl(report_fd, F_SETFD, FD_CLOEXEC);
  [[maybe_unused]] int rc = chdir("/");
  const std::string dir = pause_dir(sandbox_dir);
  const std::string root = dir + "/root";  // empty: the pause's root directory
  Status made = make_dirs(dir, 0700);
  if (made.is_ok()) made = make_dirs(root, 0500);
  if (!made.is_ok()) {
    write_shim_report(report_fd, made);
    return 1;
  }
  if (unshare(CLONE_NEWPID) != 0) {
    write_shim_report(report_fd, errno_status("unshare the pid namespace", errno));
    return 1;
  }
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    write_shim_report(report_fd, errno_status("pipe", errno));
    return 1;
  }
  const int last_cap = last_capability();  // from /proc, before the chroot
  const pid_t pid = fork();
  if (pid < 0) {
    write_shim_report(report_fd, errno_status("fork", errno));
    return 1;
  }
  if (pid == 0) {
    close(ready[0]);
    close(report_fd);
    pause_main(root, last_cap, ready[1]);
  }
  close(ready[1]);
  char byte = 0;
  ssize_t n;
  while ((n = read(ready[0], &byte, 1)) < 0 && errno == EINTR) {
  }
  close(ready[0]);
  if (n != 1) {
    waitpid(pid, nullptr, 0);
    write_shim_report(report_fd,
                      error(Code::kInternal, "the pause process failed to set itself up"));
    return 1;
  }
  const StartRecord record{pid, pid, unix_nanos_now(), process_start_ticks(pid)};
  if (Status s = write_start_record(dir, record); !s.is_ok()) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    write_shim_report(report_fd, s);
    return 1;
  }
  write_shim_report(report_fd, Status::ok());
  return 0;
}

}  // namespace shim

Result<int> start_pause(const std::string& sandbox_dir, const std::string& binary) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return errno_status("pipe", errno);
  auto spawned = spawn_shim(binary, {"k3c", "shim", kMode, sandbox_dir}, {{pipe_fds[1], 3}}, true);
  close(pipe_fds[1]);
  Status status = spawned.status();
  if (spawned.is_ok()) {
    status = read_shim_report(pipe_fds[0], kStartTimeoutMs);
    if (!status.is_ok()) kill(*spawned, SIGKILL);  // stuck or failed: it is our child
    wait_exit_code(*spawned);
  }
  close(pipe_fds[0]);
  if (!status.is_ok()) {
    (void)stop_pause(sandbox_dir);  // one that recorded itself before its starter failed
    return status;
  }
  const int pid = running_pause(sandbox_dir);
  if (pid == 0) return error(Code::kInternal, "the pause process exited right after its start");
  return pid;
}

int running_pause(const std::string& sandbox_dir) {
  auto record = read_start_record(pause_dir(sandbox_dir));
  if (!record.is_ok() || record->start_ticks == 0) return 0;
  if (process_start_ticks(record->pid) != record->start_ticks) return 0;
  return pause_sandbox_of(record->pid) == sandbox_dir ? record->pid : 0;
}

Status stop_pause(const std::string& sandbox_dir) {
  if (const int pid = running_pause(sandbox_dir); pid > 0) {
    RETURN_IF_ERROR(kill_pause(pid, sandbox_dir));
  }
  return remove_tree(pause_dir(sandbox_dir));
}

void stop_unowned_pauses(const std::string& sandboxes_root,
                         const std::function<bool(const std::string& dir)>& owned) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  const std::string prefix = sandboxes_root + "/";
  while (dirent* entry = readdir(proc)) {
    const int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    const std::string dir = pause_sandbox_of(pid);
    if (dir.rfind(prefix, 0) != 0 || owned(dir)) continue;
    (void)kill_pause(pid, dir);  // best effort: the next start tries again
    (void)remove_tree(pause_dir(dir));
  }
  closedir(proc);
}

}  // namespace k3c::runtime

// `k3c shim exec <state_dir>`: one process in a running container (exec probes, hooks,
// kubectl exec). Started by exec_in_container or an exec session with the ProcessSpec JSON
// on fd 3 and a report pipe on fd 4, stdin/stdout/stderr being the caller's pipes, and for
// a terminal a unix socket on fd 5. It joins the container's pid namespace, forks; the
// child joins the cgroups, the ipc, uts, net and mount namespaces, opens its terminal
// inside the container (the master goes back over fd 5), takes its own session and the
// process identity and execs. This process reports "ok" (or the error) on fd 4, waits and
// exits with the child's status (128+signal when killed). SIGTERM makes it kill the child's
// whole session (what a shell started in the background too) and exit; killing it kills
// the child alone (PR_SET_PDEATHSIG), which is how the caller's timeout works.
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "runtime/files.h"
#include "runtime/internal/tree_at.h"
#include "runtime/shim/container_init.h"
#include "runtime/shim/container_terminal.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/shim_modes.h"
#include "runtime/shim/state_files.h"

namespace k3c::runtime::shim {
namespace {

constexpr int kSpecFd = 3;
constexpr int kReportFd = 4;
constexpr int kConsoleFd = 5;

int report_error(const Status& status) {
  const std::string text =
      std::to_string(static_cast<int>(status.code())) + "\n" + status.message();
  [[maybe_unused]] ssize_t n = write(kReportFd, text.data(), text.size());
  return 126;
}

std::string read_all(int fd) {
  std::string bytes;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  return bytes;
}

// The container's namespaces, in the order the child joins them (cgroup after the child
// wrote itself into the container's cgroups, as the container's process unshared it; mount
// last: after it, the host's paths are gone). A container without a cgroup namespace of its
// own names the host's, which the child is in already.
constexpr std::pair<const char*, int> kNamespaces[] = {{"ipc", CLONE_NEWIPC},
                                                       {"uts", CLONE_NEWUTS},
                                                       {"net", CLONE_NEWNET},
                                                       {"cgroup", CLONE_NEWCGROUP},
                                                       {"mnt", CLONE_NEWNS}};

[[noreturn]] void run_child(const LaunchSpec& spec, const ProcessSpec& process, const int* ns_fds,
                            int error_fd, int last_cap) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  sigset_t all;  // the helper blocked SIGTERM for its signalfd
  sigfillset(&all);
  sigprocmask(SIG_UNBLOCK, &all, nullptr);
  for (const std::string& file : spec.cgroup_procs_files) {
    // "0" is the writer itself, in cgroup v1 and v2 alike.
    const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {
      report_child_error(
          error_fd, error(Code::kInternal, "join the cgroup " + file + ": " + strerror(errno)));
    }
    close(fd);
  }
  for (size_t i = 0; i < std::size(kNamespaces); ++i) {
    if (setns(ns_fds[i], kNamespaces[i].second) != 0) {
      report_child_error(error_fd,
                         error(Code::kInternal, std::string("join the ") + kNamespaces[i].first +
                                                    " namespace: " + strerror(errno)));
    }
  }
  // Its own session: the helper kills the session on SIGTERM, and a terminal needs one.
  ChildFds stdio{0, 1, 2, false};
  if (process.tty) {
    // After the mount namespace is joined: the container's own devpts. The master goes to
    // the caller over fd 5.
    auto terminal = open_container_terminal(kConsoleFd);
    if (!terminal.is_ok()) report_child_error(error_fd, terminal.status());
    close(kConsoleFd);
    stdio = {*terminal, *terminal, *terminal, true};
  }
  if (Status attached = attach_stdio(stdio); !attached.is_ok()) {
    report_child_error(error_fd, attached);
  }
  if (stdio.stdin_fd > 2) close(stdio.stdin_fd);
  report_child_error(error_fd, exec_process(process, last_cap, true));
}

// The session of `leader` (the exec'd process): every process in it gets SIGKILL. The
// helper sees host pids; a session id is never reused while a member lives.
void kill_session(pid_t leader) {
  kill(leader, SIGKILL);
  auto pids = list_dir("/proc");
  if (!pids.is_ok()) return;
  for (const std::string& name : *pids) {
    const int pid = atoi(name.c_str());
    if (pid <= 0) continue;
    auto stat = read_file("/proc/" + name + "/stat", 4096);
    if (!stat.is_ok()) continue;
    const size_t paren = stat->rfind(')');
    if (paren == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0, session = 0;
    if (sscanf(stat->c_str() + paren + 1, " %c %d %d %d", &state, &ppid, &pgrp, &session) == 4 &&
        session == leader) {
      kill(pid, SIGKILL);
    }
  }
}

// Waits for the child; SIGTERM kills its session first.
int wait_child(pid_t child, int signal_fd) {
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
  while (pidfd >= 0) {
    pollfd fds[2] = {{pidfd, POLLIN, 0}, {signal_fd, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (fds[0].revents) break;
    signalfd_siginfo info{};
    if (fds[1].revents && read(signal_fd, &info, sizeof info) == sizeof info) kill_session(child);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int shim_exec(const std::string& state_dir) {
  close_range(kConsoleFd + 1, ~0U, 0);
  for (int fd : {kSpecFd, kReportFd, kConsoleFd}) fcntl(fd, F_SETFD, FD_CLOEXEC);
  auto process = decode_process_spec(read_all(kSpecFd));
  if (!process.is_ok()) return report_error(process.status());
  close(kSpecFd);
  if (!process->tty) close(kConsoleFd);
  auto spec = read_launch_spec(state_dir);
  if (!spec.is_ok()) return report_error(spec.status());
  auto start = read_start_record(state_dir);
  if (!start.is_ok()) return report_error(start.status());
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, start->pid, 0));
  if (pidfd < 0) return report_error(error(Code::kConflict, "the container is not running"));
  const std::string proc = "/proc/" + std::to_string(start->pid) + "/ns/";
  const int pid_ns = open((proc + "pid").c_str(), O_RDONLY | O_CLOEXEC);
  int ns_fds[std::size(kNamespaces)];
  for (size_t i = 0; i < std::size(kNamespaces); ++i) {
    ns_fds[i] = open((proc + kNamespaces[i].first).c_str(), O_RDONLY | O_CLOEXEC);
  }
  // The exit record is written before the shim reaps the process, so with no record the pid
  // (held by pidfd) was still the container's when the namespace files were opened.
  if (read_exit_record(state_dir).is_ok()) {
    return report_error(error(Code::kConflict, "the container is not running"));
  }
  if (pid_ns < 0 || std::find(std::begin(ns_fds), std::end(ns_fds), -1) != std::end(ns_fds)) {
    return report_error(
        error(Code::kInternal, "open the namespaces of " + proc + ": " + strerror(errno)));
  }
  if (setns(pid_ns, CLONE_NEWPID) != 0) {
    return report_error(
        error(Code::kInternal, std::string("join the pid namespace: ") + strerror(errno)));
  }
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) {
    return report_error(error(Code::kInternal, std::string("pipe: ") + strerror(errno)));
  }
  const int last_cap = last_capability();
  // Blocked before the fork (the child unblocks it), so no SIGTERM is lost in between.
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigprocmask(SIG_BLOCK, &term, nullptr);
  const int signal_fd = signalfd(-1, &term, SFD_CLOEXEC);
  const pid_t child = fork();
  if (child < 0)
    return report_error(error(Code::kInternal, std::string("fork: ") + strerror(errno)));
  if (child == 0) run_child(*spec, *process, ns_fds, error_pipe[1], last_cap);
  close(error_pipe[1]);
  if (process->tty) close(kConsoleFd);
  const std::string failure = read_all(error_pipe[0]);
  int status = 0;
  if (!failure.empty()) {
    waitpid(child, &status, 0);
    return report_error(parse_child_error(failure));
  }
  [[maybe_unused]] ssize_t n = write(kReportFd, "ok\n", 3);
  close(kReportFd);
  return wait_child(child, signal_fd);
}

}  // namespace k3c::runtime::shim

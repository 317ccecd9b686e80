// `k3c shim exec <state_dir>`: one process in a running container (exec probes, hooks).
// Started by exec_in_container with the ProcessSpec JSON on fd 3 and a report pipe on fd 4,
// stdout/stderr being the caller's capture pipes. It joins the container's pid namespace,
// forks; the child joins the cgroups, the ipc, uts, net and mount namespaces, takes the
// process identity and execs. This process reports "ok" (or the error) on fd 4, waits and
// exits with the child's status (128+signal when killed). Killing it kills the child
// (PR_SET_PDEATHSIG), which is how the caller's timeout works.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <string>

#include "runtime/shim/container_init.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/shim_modes.h"
#include "runtime/shim/state_files.h"

namespace k3c::runtime::shim {
namespace {

constexpr int kSpecFd = 3;
constexpr int kReportFd = 4;

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

// The container's namespaces, in the order the child joins them (mount last: after it, the
// host's paths are gone).
constexpr std::pair<const char*, int> kNamespaces[] = {
    {"ipc", CLONE_NEWIPC}, {"uts", CLONE_NEWUTS}, {"net", CLONE_NEWNET}, {"mnt", CLONE_NEWNS}};

[[noreturn]] void run_child(const LaunchSpec& spec, const ProcessSpec& process, const int* ns_fds,
                            int error_fd, int last_cap) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
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
  report_child_error(error_fd, exec_process(process, last_cap, true));
}

}  // namespace

int shim_exec(const std::string& state_dir) {
  close_range(kReportFd + 1, ~0U, 0);
  fcntl(kSpecFd, F_SETFD, FD_CLOEXEC);
  fcntl(kReportFd, F_SETFD, FD_CLOEXEC);
  auto process = decode_process_spec(read_all(kSpecFd));
  if (!process.is_ok()) return report_error(process.status());
  close(kSpecFd);
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
  const pid_t child = fork();
  if (child < 0)
    return report_error(error(Code::kInternal, std::string("fork: ") + strerror(errno)));
  if (child == 0) run_child(*spec, *process, ns_fds, error_pipe[1], last_cap);
  close(error_pipe[1]);
  const std::string failure = read_all(error_pipe[0]);
  int status = 0;
  if (!failure.empty()) {
    waitpid(child, &status, 0);
    return report_error(parse_child_error(failure));
  }
  [[maybe_unused]] ssize_t n = write(kReportFd, "ok\n", 3);
  close(kReportFd);
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace k3c::runtime::shim

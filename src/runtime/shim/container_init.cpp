// The container's process before exec (see container_init.h).
#include "runtime/shim/container_init.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/files.h"
#include "runtime/shim/cgroup_view.h"
#include "runtime/shim/container_terminal.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/rootfs_mounts.h"

namespace k3c::runtime::shim {
namespace {

constexpr char kInitDefaultPath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

Status init_failure(const std::string& what, int err) {
  return error(Code::kInvalid, what + ": " + std::strerror(err));
}

void check(int fd, const Status& status) {
  if (!status.is_ok()) report_child_error(fd, status);
}

Status enter_namespaces(const LaunchSpec& spec, const ChildFds& fds) {
  const std::pair<int, int> joins[] = {
      {fds.net_fd, CLONE_NEWNET}, {fds.ipc_fd, CLONE_NEWIPC}, {fds.uts_fd, CLONE_NEWUTS}};
  for (const auto& [fd, type] : joins) {
    if (fd >= 0 && setns(fd, type) != 0) return init_failure("join a namespace (setns)", errno);
  }
  int flags = CLONE_NEWNS;
  if (spec.net.mode == NamespaceMode::kNew) flags |= CLONE_NEWNET;
  if (spec.ipc.mode == NamespaceMode::kNew) flags |= CLONE_NEWIPC;
  if (spec.uts.mode == NamespaceMode::kNew) flags |= CLONE_NEWUTS;
  if (unshare(flags) != 0) return init_failure("unshare namespaces", errno);
  if (spec.uts.mode == NamespaceMode::kNew && !spec.hostname.empty() &&
      sethostname(spec.hostname.data(), spec.hostname.size()) != 0) {
    return init_failure("sethostname", errno);
  }
  return Status::ok();
}

// Once the shim placed the process in its cgroups: its cgroup namespace (a v2 host; its
// cgroup becomes its root) and its /sys/fs/cgroup, from the host's layout as this process
// sees it.
Status enter_cgroup_view(const LaunchSpec& spec) {
  ASSIGN_OR_RETURN(const std::string mountinfo, read_file("/proc/self/mountinfo", 4 << 20));
  ASSIGN_OR_RETURN(const std::string own, read_file("/proc/self/cgroup", 64 << 10));
  ASSIGN_OR_RETURN(const CgroupView view, plan_cgroup_view(mountinfo, own, spec.privileged));
  if (view.new_namespace && unshare(CLONE_NEWCGROUP) != 0)
    return init_failure("unshare the cgroup namespace", errno);
  return mount_cgroup_view(spec, view);
}

// After pivot_root: a terminal of the container's own devpts, bound on /dev/console and made
// the process's stdio and controlling terminal; its master goes to the shim.
Status attach_console(int console_fd) {
  ASSIGN_OR_RETURN(const int slave, open_container_terminal(console_fd));
  close(console_fd);
  Status attached = bind_console(slave);
  if (attached.is_ok()) attached = attach_stdio({slave, slave, slave, true});
  close(slave);
  return attached;
}

}  // namespace

Status attach_stdio(const ChildFds& fds) {
  if (setsid() < 0) return init_failure("setsid", errno);
  if (dup2(fds.stdin_fd, 0) < 0 || dup2(fds.stdout_fd, 1) < 0 || dup2(fds.stderr_fd, 2) < 0) {
    return init_failure("dup2 stdio", errno);
  }
  if (fds.tty && ioctl(0, TIOCSCTTY, 0) != 0)
    return init_failure("set the controlling terminal", errno);
  return Status::ok();
}

void report_child_error(int fd, const Status& status) {
  const std::string text =
      std::to_string(static_cast<int>(status.code())) + "\n" + status.message();
  // Best effort: the shim sees a silent exit before exec too (exited_before_exec).
  [[maybe_unused]] ssize_t n = write(fd, text.data(), text.size());
  _exit(127);
}

bool exited_before_exec(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const std::string init_comm = std::string("(") + kInitComm + ") ";
  // The error pipe closes early in execve, before the kernel renames the process, and early
  // in exit, before it becomes a zombie: wait (briefly) for one of the two.
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;  // reaped, and not by us: something is wrong
    char buf[256];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return true;
    buf[n] = '\0';
    // "<pid> (<comm>) <state> ...": a zombie keeps the comm it died with.
    const char* comm = strstr(buf, init_comm.c_str());
    if (comm == nullptr) return false;               // renamed: it exec'd
    if (comm[init_comm.size()] == 'Z') return true;  // died as k3c-init
    usleep(1000);
  }
  return false;  // still between the two after a second: let the exit record tell
}

Status parse_child_error(const std::string& bytes) {
  const size_t newline = bytes.find('\n');
  if (newline == std::string::npos)
    return error(Code::kInternal, "the container process failed: " + bytes);
  const int code = atoi(bytes.substr(0, newline).c_str());
  if (code <= 0 || code > static_cast<int>(Code::kNotImplemented)) {
    return error(Code::kInternal, bytes.substr(newline + 1));
  }
  return error(static_cast<Code>(code), bytes.substr(newline + 1));
}

Result<std::string> find_executable(const std::string& name, const std::vector<std::string>& env) {
  const auto executable = [](const std::string& path) -> int {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (access(path.c_str(), X_OK) != 0) return errno;
    return 0;
  };
  if (name.empty()) return error(Code::kInvalid, "exec: no command");
  if (name.find('/') != std::string::npos) {
    const int err = executable(name);
    if (err == 0) return name;
    return error(Code::kInvalid,
                 "exec: \"" + name + "\": stat " + name + ": " + std::strerror(err));
  }
  std::string path = kInitDefaultPath;
  for (const std::string& e : env) {
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    // An empty entry is the current directory.
    std::string candidate = end == start ? std::string(".") : path.substr(start, end - start);
    candidate += '/';
    candidate += name;
    if (executable(candidate) == 0) return candidate;
    start = end + 1;
  }
  return error(Code::kInvalid, "exec: \"" + name + "\": executable file not found in $PATH");
}

Status exec_process(const ProcessSpec& process, int last_cap, bool parent_death_kill) {
  umask(022);
  RETURN_IF_ERROR(apply_seccomp(process, last_cap));
  RETURN_IF_ERROR(apply_identity(process, last_cap));
  const std::string cwd = process.cwd.empty() ? "/" : process.cwd;
  if (chdir(cwd.c_str()) != 0) {
    return init_failure("chdir to cwd (\"" + cwd + "\") set in config.json failed", errno);
  }
  if (process.args.empty()) return error(Code::kInvalid, "exec: no command");
  ASSIGN_OR_RETURN(std::string path, find_executable(process.args[0], process.env));
  // The uid change cleared the parent-death signal; set it again or leave it off.
  if (prctl(PR_SET_PDEATHSIG, parent_death_kill ? SIGKILL : 0, 0, 0, 0) != 0) {
    return init_failure("prctl(PR_SET_PDEATHSIG)", errno);
  }
  std::vector<char*> argv;
  for (const std::string& a : process.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : process.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  execve(path.c_str(), argv.data(), envp.data());
  return init_failure("exec " + path, errno);
}

void run_container_child(const LaunchSpec& spec, const ChildFds& fds, int last_cap) {
  prctl(PR_SET_NAME, kInitComm, 0, 0, 0);  // until the exec renames it: see exited_before_exec
  // Until the exec, the process must not outlive the shim that set it up.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // Signals the shim blocked for its signalfd stay blocked across exec; unblock them.
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_UNBLOCK, &all, nullptr);
  for (int sig : {SIGPIPE, SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1}) signal(sig, SIG_DFL);
  if (!fds.tty) check(fds.error_fd, attach_stdio(fds));
  check(fds.error_fd, enter_namespaces(spec, fds));
  check(fds.error_fd, prepare_rootfs(spec));
  char go = 0;
  if (read(fds.go_fd, &go, 1) != 1) _exit(127);  // the shim gave up on us
  check(fds.error_fd, enter_cgroup_view(spec));
  check(fds.error_fd, enter_rootfs(spec));
  if (fds.tty) check(fds.error_fd, attach_console(fds.console_fd));
  check(fds.error_fd, finish_rootfs(spec));
  check(fds.error_fd, exec_process(spec.process, last_cap, false));
  _exit(127);  // exec_process returns only with an error, reported above
}

}  // namespace k3c::runtime::shim

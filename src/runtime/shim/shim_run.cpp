// `k3c shim run <state_dir>`: the shim that supervises one container. Started by
// launch_container with a report pipe on fd 3; it detaches, starts the container's process
// (container_init.cpp), reports "ok" or the error on fd 3, then copies the container's
// output into the CRI log until the process exits, records the exit and exits itself.
//
// One thread, poll() over the output pipes, a signalfd and the attach socket with its
// clients (attach_server.h), fixed buffers: the shim stays small (doc/runtime.md has its
// measured RSS).
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/shim/attach_server.h"
#include "runtime/shim/container_init.h"
#include "runtime/shim/container_terminal.h"
#include "runtime/shim/cri_log.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/shim_modes.h"
#include "runtime/shim/spawn_shim.h"
#include "runtime/shim/state_files.h"

namespace k3c::runtime::shim {
namespace {

Status fail(const std::string& what, int err) {
  return error(Code::kInternal, what + ": " + std::strerror(err));
}

int open_log(const std::string& path) {
  if (path.empty()) return -1;
  return open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
}

// What the shim holds for its container.
struct Supervised {
  pid_t pid = -1;
  int out_fd = -1;    // stdout pipe, or the terminal's master side
  int err_fd = -1;    // stderr pipe; -1 with a terminal
  int stdin_fd = -1;  // the write end of stdin (or the terminal master), kept open
};

// Opens the namespace file of a kJoin setting, else -1.
Result<int> open_namespace(const NamespaceSetting& ns, const char* what) {
  if (ns.mode != NamespaceMode::kJoin) return -1;
  const int fd = open(ns.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return error(Code::kInvalid, std::string("open the ") + what + " namespace " + ns.path + ": " +
                                     strerror(errno));
  }
  return fd;
}

Status write_to(const std::string& file, const std::string& text) {
  const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fail("open " + file, errno);
  const ssize_t n = write(fd, text.data(), text.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) return fail("write " + text + " to " + file, err);
  return Status::ok();
}

// What the shim does to the process before releasing it: its cgroups, its OOM score.
Status place_process(const LaunchSpec& spec, pid_t pid) {
  for (const std::string& file : spec.cgroup_procs_files) {
    RETURN_IF_ERROR(write_to(file, std::to_string(pid)));
  }
  if (spec.oom_score_adj) {
    RETURN_IF_ERROR(write_to("/proc/" + std::to_string(pid) + "/oom_score_adj",
                             std::to_string(*spec.oom_score_adj)));
  }
  return Status::ok();
}

// Forks the container's process and waits until it exec'd or failed.
Result<Supervised> start_container(const LaunchSpec& spec) {
  ChildFds child;
  Supervised held;
  int console = -1;  // ours of the socket the child sends its terminal over
  if (spec.process.tty) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      return fail("socketpair", errno);
    console = pair[0];
    child.console_fd = pair[1];
    child.tty = true;
  } else {
    int out[2], err[2], in[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return fail("pipe", errno);
    held.out_fd = out[0];
    held.err_fd = err[0];
    child.stdout_fd = out[1];
    child.stderr_fd = err[1];
    if (spec.process.stdin) {
      if (pipe2(in, O_CLOEXEC) != 0) return fail("pipe", errno);
      child.stdin_fd = in[0];
      held.stdin_fd = in[1];
    } else {
      child.stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
  }
  ASSIGN_OR_RETURN(child.net_fd, open_namespace(spec.net, "network"));
  ASSIGN_OR_RETURN(child.ipc_fd, open_namespace(spec.ipc, "ipc"));
  ASSIGN_OR_RETURN(child.uts_fd, open_namespace(spec.uts, "uts"));
  ASSIGN_OR_RETURN(const int pid_ns, open_namespace(spec.pid, "pid"));
  // A pid namespace applies to the children of the caller: the shim switches (or makes) it,
  // then forks, and the container's process is PID 1 of a new one.
  if (pid_ns >= 0 && setns(pid_ns, CLONE_NEWPID) != 0) {
    return error(Code::kInvalid,
                 "join the pid namespace " + spec.pid.path + ": " + strerror(errno));
  }
  if (spec.pid.mode == NamespaceMode::kNew && unshare(CLONE_NEWPID) != 0) {
    return fail("unshare the pid namespace", errno);
  }
  int error_pipe[2], go_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0 || pipe2(go_pipe, O_CLOEXEC) != 0) {
    return fail("pipe", errno);
  }
  child.error_fd = error_pipe[1];
  child.go_fd = go_pipe[0];
  const int last_cap = last_capability();
  held.pid = fork();
  if (held.pid < 0) return fail("fork", errno);
  if (held.pid == 0) {
    // The shim's ends: the child holding the go pipe's write end would never see its end.
    close(go_pipe[1]);
    close(error_pipe[0]);
    run_container_child(spec, child, last_cap);
  }
  // The child's ends.
  const int child_ends[] = {child.stdin_fd, child.stdout_fd, child.stderr_fd, child.console_fd,
                            child.error_fd, child.go_fd,     child.net_fd,    child.ipc_fd,
                            child.uts_fd,   pid_ns};
  for (int fd : child_ends) {
    if (fd >= 0) close(fd);
  }
  Status placed = place_process(spec, held.pid);
  if (placed.is_ok()) {
    const char go = 1;
    if (write(go_pipe[1], &go, 1) != 1) placed = fail("release the container process", errno);
  }
  close(go_pipe[1]);  // a child still waiting sees end-of-file and exits
  std::string failure;
  char buf[4096];
  ssize_t n;
  while ((n = read(error_pipe[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    failure.append(buf, static_cast<size_t>(n));
  }
  close(error_pipe[0]);
  if (placed.is_ok() && failure.empty() && exited_before_exec(held.pid)) {
    failure = std::to_string(static_cast<int>(Code::kInternal)) +
              "\nthe container process died before its exec";
  }
  if (placed.is_ok() && failure.empty() && console >= 0) {
    auto master = receive_container_terminal(console);
    if (master.is_ok()) {
      held.out_fd = held.stdin_fd = *master;
    } else {
      placed = master.status();
    }
  }
  if (console >= 0) close(console);
  if (!placed.is_ok() || !failure.empty()) {
    kill(held.pid, SIGKILL);
    waitpid(held.pid, nullptr, 0);
    if (!placed.is_ok()) return placed;
    return parse_child_error(failure);
  }
  return held;
}

// Copies output into the log until the container exits; returns its exit record.
ExitRecord supervise(const LaunchSpec& spec, Supervised& held, int signal_fd,
                     AttachServer& attach) {
  CriLogStream out("stdout"), err("stderr");
  int log_fd = open_log(spec.log_path);
  out.set_fd(log_fd);
  err.set_fd(log_fd);
  static char buf[16 * 1024];
  const auto pump = [&](int& fd, CriLogStream& stream, bool drain) {
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        const std::string_view bytes(buf, static_cast<size_t>(n));
        stream.feed(bytes, unix_nanos_now());
        attach.fan_out(&stream == &err, bytes);
        if (drain) continue;
        return;
      }
      if (n < 0 && errno == EAGAIN) return;
      // End of file (or EIO from a terminal whose other side closed).
      stream.finish(unix_nanos_now());
      attach.forget(fd);
      close(fd);
      fd = -1;
      return;
    }
  };
  siginfo_t exit_info{};
  std::vector<pollfd> fds;
  fds.reserve(3 + 2 + 2 * AttachServer::kMaxClients);
  for (;;) {
    fds = {{signal_fd, POLLIN, 0}, {held.out_fd, POLLIN, 0}, {held.err_fd, POLLIN, 0}};
    attach.add_poll_fds(fds);
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (fds[1].revents) pump(held.out_fd, out, false);
    if (fds[2].revents) pump(held.err_fd, err, false);
    attach.handle(fds.data() + 3, fds.size() - 3);
    if (!(fds[0].revents & POLLIN)) continue;
    signalfd_siginfo info{};
    if (read(signal_fd, &info, sizeof info) != sizeof info) continue;
    if (info.ssi_signo == SIGUSR1) {  // reopen the log after a rotation
      const int reopened = open_log(spec.log_path);
      if (reopened >= 0 || spec.log_path.empty()) {
        if (log_fd >= 0) close(log_fd);
        log_fd = reopened;
        out.set_fd(log_fd);
        err.set_fd(log_fd);
      }
      continue;
    }
    if (info.ssi_signo != SIGCHLD) continue;
    // WNOWAIT: the pid stays ours (a zombie) until the exit is recorded, so that
    // signal_container can never hit a recycled pid.
    exit_info = {};
    if (waitid(P_PID, held.pid, &exit_info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        exit_info.si_pid == held.pid) {
      break;
    }
  }
  // What the container wrote before it exited; a descendant still holding the pipe does not
  // keep the shim waiting.
  for (int* fd : {&held.out_fd, &held.err_fd}) {
    if (*fd >= 0) fcntl(*fd, F_SETFL, O_NONBLOCK);
  }
  if (held.out_fd >= 0) pump(held.out_fd, out, true);
  if (held.err_fd >= 0) pump(held.err_fd, err, true);
  out.finish(unix_nanos_now());
  err.finish(unix_nanos_now());
  ExitRecord record;
  record.finished_at_ns = unix_nanos_now();
  if (exit_info.si_code == CLD_EXITED) {
    record.exit_code = exit_info.si_status;
  } else {
    record.signal = exit_info.si_status;
    record.exit_code = 128 + exit_info.si_status;
  }
  if (log_fd >= 0) close(log_fd);
  attach.finish(record.exit_code);
  return record;
}

}  // namespace

int shim_run(const std::string& state_dir) {
  const int report_fd = 3;
  close_range(report_fd + 1, ~0U, 0);  // whatever k3c had open is not ours
  fcntl(report_fd, F_SETFD, FD_CLOEXEC);
  // Detach: the launcher waits for this process, which exits at once; the shim goes on as
  // an orphan (reparented to init or a subreaper) in the session posix_spawn made for it.
  const pid_t detached = fork();
  if (detached < 0) {
    write_shim_report(report_fd, fail("fork", errno));
    return 1;
  }
  if (detached > 0) _exit(0);
  [[maybe_unused]] int rc = chdir("/");  // hold no directory of k3c's busy
  // For a launcher that gives up waiting: it kills this pid (its child dies with it).
  [[maybe_unused]] Status noted = write_shim_pid_file(state_dir, getpid());
  auto spec = read_launch_spec(state_dir);
  if (!spec.is_ok()) {
    write_shim_report(report_fd, spec.status());
    return 1;
  }
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : {SIGCHLD, SIGUSR1, SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, sig);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (signal_fd < 0) {
    write_shim_report(report_fd, fail("signalfd", errno));
    return 1;
  }
  auto held = start_container(*spec);
  if (!held.is_ok()) {
    write_shim_report(report_fd, held.status());
    return 1;
  }
  const Status recorded = write_start_record(
      state_dir, {getpid(), held->pid, unix_nanos_now(), process_start_ticks(held->pid)});
  if (!recorded.is_ok()) {
    kill(held->pid, SIGKILL);
    waitpid(held->pid, nullptr, 0);
    write_shim_report(report_fd, recorded);
    return 1;
  }
  // Before the report: a client may attach as soon as the start returned. Without the
  // socket (an error) the container runs all the same; attach then answers that it cannot.
  AttachServer attach;
  const int terminal = spec->process.tty ? held->out_fd : -1;
  [[maybe_unused]] Status listening = attach.listen(
      state_dir, {spec->process.stdin ? held->stdin_fd : -1, terminal, spec->process.stdin_once});
  write_shim_report(report_fd, Status::ok());
  const ExitRecord exit_record = supervise(*spec, *held, signal_fd, attach);
  // A failed write (disk full) leaves no exit file: read_process_state then reports the
  // shim gone without a record, which is what happened.
  [[maybe_unused]] Status written = write_exit_record(state_dir, exit_record);
  waitpid(held->pid, nullptr, 0);
  return 0;
}

}  // namespace k3c::runtime::shim

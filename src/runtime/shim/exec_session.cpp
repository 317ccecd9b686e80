// start_exec_session: an interactive process in a running container (kubectl exec) as a
// StreamSession (see container_process.h). The helper `k3c shim exec` is k3c's child: the
// session reaps it (wait, cancel or the destructor), so no zombie stays behind.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include "runtime/files.h"
#include "runtime/shim/container_process.h"
#include "runtime/shim/container_terminal.h"
#include "runtime/shim/exec_helper.h"
#include "runtime/shim/session_fds.h"
#include "runtime/shim/spawn_shim.h"

namespace k3c::runtime {
namespace {

using namespace shim;
using internal::Fd;

constexpr int kReportTimeoutMs = 60 * 1000;
// SIGTERM makes the helper kill the process's session; it has this long before SIGKILL.
constexpr int kTermGraceMs = 2000;

// Whether the process behind `pidfd` exited, waiting up to `timeout_ms` (-1: forever).
bool exited(int pidfd, int timeout_ms) {
  pollfd p{pidfd, POLLIN, 0};
  for (;;) {
    const int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    return ready != 0;  // an error counts as gone: there is nothing left to wait for
  }
}

class ExecSession final : public SessionFds {
 public:
  ExecSession(pid_t helper, Fd pidfd, int stdin_fd, int stdout_fd, int stderr_fd, Fd master)
      : SessionFds(stdin_fd, stdout_fd, stderr_fd, master.get() >= 0),
        helper_(helper),
        pidfd_(std::move(pidfd)),
        master_(std::move(master)) {}
  ~ExecSession() override { cancel(); }

  Status resize(uint16_t columns, uint16_t rows) override {
    if (master_.get() < 0) return error(Code::kInvalid, "resize needs a terminal (tty)");
    winsize size{};
    size.ws_col = columns;
    size.ws_row = rows;
    if (ioctl(master_.get(), TIOCSWINSZ, &size) != 0) return errno_status("TIOCSWINSZ", errno);
    return Status::ok();
  }

  Result<int> wait() override {
    exited(pidfd_.get(), -1);
    std::lock_guard lock(mu_);
    reap_locked();
    if (cancelled_) return error(Code::kServiceUnavailable, "the exec session was cancelled");
    return exit_code_;
  }

  void cancel() override {
    {
      std::lock_guard lock(mu_);
      if (reaped_ || cancelled_) return;
      if (exited(pidfd_.get(), 0)) {
        reap_locked();
        return;
      }
      cancelled_ = true;
      kill(helper_, SIGTERM);
    }
    if (!exited(pidfd_.get(), kTermGraceMs)) {
      kill(helper_, SIGKILL);  // the exec'd process dies with it (PR_SET_PDEATHSIG)
      exited(pidfd_.get(), -1);
    }
    std::lock_guard lock(mu_);
    reap_locked();
  }

 private:
  void reap_locked() {
    if (reaped_) return;
    exit_code_ = wait_exit_code(helper_);
    reaped_ = true;
  }

  const pid_t helper_;
  const Fd pidfd_;
  const Fd master_;  // the terminal; -1 without one
  std::mutex mu_;    // guards the three below
  bool reaped_ = false;
  bool cancelled_ = false;
  int exit_code_ = -1;
};

}  // namespace

Result<std::unique_ptr<StreamSession>> start_exec_session(const std::string& state_dir,
                                                          const ProcessSpec& process,
                                                          const StreamOptions& options) {
  ProcessSpec spec = process;
  spec.tty = options.tty;
  PipeEnds in, out, err;
  Fd console_ours, console_theirs;
  std::vector<std::pair<int, int>> fds;
  if (options.tty) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      return errno_status("socketpair", errno);
    console_ours = Fd(pair[0]);
    console_theirs = Fd(pair[1]);
    fds.push_back({console_theirs.get(), kExecConsoleFd});
  } else {
    if (options.stdin) {
      ASSIGN_OR_RETURN(in, make_pipe());
      fds.push_back({in.read.get(), 0});
    }
    if (options.stdout) {
      ASSIGN_OR_RETURN(out, make_pipe());
      fds.push_back({out.write.get(), 1});
    }
    if (options.stderr) {
      ASSIGN_OR_RETURN(err, make_pipe());
      fds.push_back({err.write.get(), 2});
    }
  }
  ASSIGN_OR_RETURN(ExecHelper helper, spawn_exec_helper(state_dir, spec, fds));
  // The helper has its copies; ours of its ends would keep the streams from ending.
  in.read = Fd();
  out.write = Fd();
  err.write = Fd();
  console_theirs = Fd();
  const auto fail = [&](Status status) {
    kill(helper.pid, SIGKILL);
    wait_exit_code(helper.pid);
    return status;
  };
  if (Status started = read_shim_report(helper.report.get(), kReportTimeoutMs); !started.is_ok())
    return fail(started);
  Fd master;
  if (options.tty) {
    // Sent by the helper's child before its exec, so it is queued by now.
    auto received = receive_container_terminal(console_ours.get());
    if (!received.is_ok()) return fail(received.status());
    master = Fd(*received);
  }
  Fd pidfd(static_cast<int>(syscall(SYS_pidfd_open, helper.pid, 0)));
  if (pidfd.get() < 0) return fail(errno_status("pidfd_open", errno));
  int stdin_fd = in.write.release(), stdout_fd = out.read.release(), stderr_fd = err.read.release();
  if (master.get() >= 0) {
    stdout_fd = fcntl(master.get(), F_DUPFD_CLOEXEC, 0);
    if (options.stdin) stdin_fd = fcntl(master.get(), F_DUPFD_CLOEXEC, 0);
  }
  return std::unique_ptr<StreamSession>(std::make_unique<ExecSession>(
      helper.pid, std::move(pidfd), stdin_fd, stdout_fd, stderr_fd, std::move(master)));
}

}  // namespace k3c::runtime

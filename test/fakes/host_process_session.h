// A runtime::StreamSession that is a real process on the host, for tests of exec and attach
// streaming without containers: argv runs with pipes for stdin/stdout/stderr, or on a pseudo
// terminal when options.tty. The fds handed out are non-blocking, as the contract says.
//
// Thread-safety: as StreamSession (wait() on one thread, cancel()/resize() from others).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/runtime_service.h"

namespace k3c::testing {

class HostProcessSession final : public runtime::StreamSession {
 public:
  // Starts `argv`; check started().
  HostProcessSession(const std::vector<std::string>& argv, const runtime::StreamOptions& o)
      : tty_(o.tty) {
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    int master = -1;
    std::string slave_name;
    if (o.tty) {
      master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
      if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return;
      slave_name = ptsname(master);
    } else {
      if (o.stdin && pipe2(in, O_CLOEXEC) != 0) return;
      if (o.stdout && pipe2(out, O_CLOEXEC) != 0) return;
      if (o.stderr && pipe2(err, O_CLOEXEC) != 0) return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      if (o.tty) {
        setsid();
        int slave = open(slave_name.c_str(), O_RDWR);
        ioctl(slave, TIOCSCTTY, 0);
        dup2(slave, 0), dup2(slave, 1), dup2(slave, 2);
      } else {
        int null = open("/dev/null", O_RDWR);
        dup2(o.stdin ? in[0] : null, 0);
        dup2(o.stdout ? out[1] : null, 1);
        dup2(o.stderr ? err[1] : null, 2);
      }
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    auto nonblocking = [](int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); };
    if (o.tty) {
      master_ = master;
      nonblocking(master_);
      if (o.stdin) stdin_ = dup(master_);
      stdout_ = master_;
    } else {
      for (int fd : {in[0], out[1], err[1]})
        if (fd >= 0) ::close(fd);
      stdin_ = in[1], stdout_ = out[0], stderr_ = err[0];
      for (int fd : {stdin_, stdout_, stderr_})
        if (fd >= 0) nonblocking(fd);
    }
  }
  ~HostProcessSession() override {
    cancel();
    (void)wait();
    for (int fd : {stdin_, stdout_, stderr_})
      if (fd >= 0) ::close(fd);
  }
  bool started() const { return pid_ > 0; }

  int stdin_fd() const override { return stdin_; }
  int stdout_fd() const override { return stdout_; }
  int stderr_fd() const override { return stderr_; }
  void close_stdin() override {
    std::lock_guard lock(mu_);
    if (stdin_ < 0) return;
    if (tty_) {
      (void)!::write(stdin_, "\x04", 1);  // end of input on a terminal
    } else {
      ::close(stdin_);
      stdin_ = -1;
    }
  }
  Status resize(uint16_t columns, uint16_t rows) override {
    if (!tty_) return error(Code::kInvalid, "no terminal");
    winsize ws{};
    ws.ws_col = columns, ws.ws_row = rows;
    if (ioctl(master_, TIOCSWINSZ, &ws) != 0) return error(Code::kInternal, "TIOCSWINSZ");
    std::lock_guard lock(mu_);
    sizes_.emplace_back(columns, rows);
    return Status::ok();
  }
  Result<int> wait() override {
    std::lock_guard one(wait_mu_);
    if (pid_ <= 0) return error(Code::kInternal, "not started");
    if (!reaped_) {
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::lock_guard lock(mu_);
    if (cancelled_) return error(Code::kServiceUnavailable, "the session was cancelled");
    return code_;
  }
  void cancel() override {
    std::lock_guard lock(mu_);
    if (cancelled_ || pid_ <= 0 || reaped_) return;
    cancelled_ = true;
    ::kill(pid_, SIGKILL);  // before the reap (wait_mu_ may be held by a waiter): pid is ours
  }
  bool cancelled() const {
    std::lock_guard lock(mu_);
    return cancelled_;
  }
  std::vector<std::pair<uint16_t, uint16_t>> sizes() const {
    std::lock_guard lock(mu_);
    return sizes_;
  }

 private:
  const bool tty_;
  pid_t pid_ = -1;
  int master_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  std::mutex wait_mu_;     // one reaper
  mutable std::mutex mu_;  // guards cancelled_, sizes_, stdin_ closing
  bool cancelled_ = false;
  std::atomic<bool> reaped_{false};  // written under wait_mu_
  int code_ = 0;                     // guarded by wait_mu_
  std::vector<std::pair<uint16_t, uint16_t>> sizes_;
};

}  // namespace k3c::testing

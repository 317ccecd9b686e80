// posix_spawn of the shim (see spawn_shim.h).
#include "runtime/shim/spawn_shim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/shim/container_init.h"

extern char** environ;

namespace k3c::runtime::shim {

Result<pid_t> spawn_shim(const std::string& binary, const std::vector<std::string>& args,
                         const std::vector<std::pair<int, int>>& fds, bool new_session) {
  // Copies above every target number first, so that placing one fd never overwrites the
  // source of another.
  std::vector<int> high;
  for (const auto& [from, to] : fds) {
    const int copy = fcntl(from, F_DUPFD_CLOEXEC, 64);
    if (copy < 0) {
      for (int fd : high) close(fd);
      return error(Code::kInternal, std::string("dup: ") + strerror(errno));
    }
    high.push_back(copy);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  bool std_mapped[3] = {false, false, false};
  for (size_t i = 0; i < fds.size(); ++i) {
    posix_spawn_file_actions_adddup2(&actions, high[i], fds[i].second);
    if (fds[i].second < 3) std_mapped[fds[i].second] = true;
  }
  for (int fd = 0; fd < 3; ++fd) {
    if (!std_mapped[fd]) {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
    }
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGQUIT}) {
    sigaddset(&defaults, sig);
  }
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (new_session) flags |= POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&attr, flags);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, binary.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (int fd : high) close(fd);
  if (rc != 0) return error(Code::kInternal, "start the shim " + binary + ": " + strerror(rc));
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void write_shim_report(int fd, const Status& status) {
  const std::string text =
      status.is_ok() ? std::string("ok\n")
                     : std::to_string(static_cast<int>(status.code())) + "\n" + status.message();
  [[maybe_unused]] ssize_t n = write(fd, text.data(), text.size());
  close(fd);
}

// Reads the shim's report ("ok\n" or "<code>\n<message>") until it closes the pipe.
Status read_shim_report(int fd, int timeout_ms) {
  std::string bytes;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return error(Code::kTimeout, "the shim did not report within the deadline");
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<size_t>(n));
  }
  if (bytes == "ok\n") return Status::ok();
  if (bytes.empty()) return error(Code::kInternal, "the shim exited without reporting");
  return parse_child_error(bytes);
}

}  // namespace k3c::runtime::shim

// posix_spawn of the shim (see spawn_shim.h).
#include "runtime/shim/spawn_shim.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

}  // namespace k3c::runtime::shim

// Tests that change the machine (mounts, namespaces) run their scenario in a forked child
// that first unshares what it changes, so nothing reaches the host and everything goes away
// with the child, also when the scenario fails. Catch2 macros do not work across the fork:
// a scenario returns 0 when it passed and uses CHILD_CHECK, which prints what failed.
#pragma once

#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

namespace k3c::testing {

struct ChildSetup {
  int unshare_flags = CLONE_NEWNS;  // a mount namespace, made private (rprivate)
  std::string tmpfs_dir;            // mount a tmpfs here first, when set
  std::string tmpfs_size = "16m";
};

// The child's exit code: 0 = the scenario passed, 99 = the setup failed, 128+n = signal n.
inline int run_in_child(const ChildSetup& setup, const std::function<int()>& scenario) {
  pid_t pid = fork();
  if (pid == 0) {
    if (unshare(setup.unshare_flags) != 0 ||
        ((setup.unshare_flags & CLONE_NEWNS) &&
         mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ||
        (!setup.tmpfs_dir.empty() && mount("tmpfs", setup.tmpfs_dir.c_str(), "tmpfs", 0,
                                           ("size=" + setup.tmpfs_size).c_str()) != 0)) {
      perror("child setup (unshare/mount)");
      _exit(99);
    }
    _exit(scenario());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace k3c::testing

#define CHILD_CHECK(cond)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// main() of the shim's integration test: the binary is also the shim (`shim run|exec`, as
// /proc/self/exe re-executed by launch_container), and as root it first moves itself into
// its own mount namespace (rprivate) and network namespace (loopback only), so nothing the
// tests mount or start reaches the host. It is a child subreaper: detached shims become its
// children, and the tests reap them.
#define CATCH_CONFIG_RUNNER
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>

#include "runtime/shim/container_process.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "shim") == 0) return k3c::runtime::shim_main(argc, argv);
  signal(SIGPIPE, SIG_IGN);  // as k3c's main(): the stream sessions' writes get EPIPE
  if (geteuid() == 0) {
    if (unshare(CLONE_NEWNS | CLONE_NEWNET) != 0 ||
        mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      std::perror("shim test: own mount and network namespaces");
      return 99;
    }
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  }
  return Catch::Session().run(argc, argv);
}

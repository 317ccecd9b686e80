// Tests for ShutdownSignals. Signals are sent inside forked children so that a broken
// implementation kills the child, not the test binary, and so that no thread of the test
// binary that has the signals unblocked can catch them.
#include "core/signals.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>

namespace k3c {
namespace {

using namespace std::chrono_literals;

// The child's exit code, or 1000 + the signal that killed it.
int run_in_child(const std::function<int()>& body) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(10);  // a hung child dies of SIGALRM instead of hanging the test
    _exit(body());
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 1000 + WTERMSIG(status);
}

bool blocked_in_this_thread(int signo) {
  sigset_t current;
  pthread_sigmask(SIG_BLOCK, nullptr, &current);
  return sigismember(&current, signo) == 1;
}

TEST_CASE("The first SIGTERM or SIGINT requests a graceful stop") {
  for (int signo : {SIGTERM, SIGINT}) {
    int code = run_in_child([signo] {
      auto signals = ShutdownSignals::install();
      if (!signals.is_ok()) return 2;
      if ((*signals)->stop_requested().is_set()) return 3;
      kill(getpid(), signo);
      if (!(*signals)->stop_requested().wait_for(5s)) return 4;
      if ((*signals)->signal_number() != signo) return 5;
      return 0;  // survived the signal: it was turned into a stop request
    });
    CHECK(code == 0);
  }
}

TEST_CASE("A second signal forces an immediate exit with 128 + signal") {
  auto twice = [](int first, int second) {
    return run_in_child([first, second] {
      auto signals = ShutdownSignals::install();
      if (!signals.is_ok()) return 2;
      kill(getpid(), first);
      if (!(*signals)->stop_requested().wait_for(5s)) return 4;
      kill(getpid(), second);
      sleep(5);  // a graceful stop that takes long; the second signal must cut it short
      return 0;
    });
  };
  CHECK(twice(SIGTERM, SIGTERM) == 143);
  CHECK(twice(SIGINT, SIGINT) == 130);
  CHECK(twice(SIGTERM, SIGINT) == 130);
}

TEST_CASE("ShutdownSignals blocks the signals while it lives and restores the mask") {
  REQUIRE_FALSE(blocked_in_this_thread(SIGTERM));
  {
    auto signals = ShutdownSignals::install();
    REQUIRE(signals.is_ok());
    CHECK(blocked_in_this_thread(SIGTERM));
    CHECK(blocked_in_this_thread(SIGINT));
  }
  CHECK_FALSE(blocked_in_this_thread(SIGTERM));
  CHECK_FALSE(blocked_in_this_thread(SIGINT));
}

}  // namespace
}  // namespace k3c

// Tests for the fatal-signal report. The crash happens in a forked child whose stderr goes to
// a file the test reads afterwards.
#include "core/crash_report.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>

namespace k3c {
namespace {

// Not inlined, so that the report has a frame that names it.
[[gnu::noinline]] void crash_in_named_function(volatile int* target) { *target = 1; }

struct Crashed {
  int signal = 0;
  std::string report;
};

Crashed crash_child(const std::function<void()>& crash) {
  char path[] = "/tmp/k3c-crash-report-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(20);
    dup2(fd, STDERR_FILENO);
    crash_report::install();
    crash();
    _exit(0);
  }
  close(fd);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  Crashed c;
  if (WIFSIGNALED(status)) c.signal = WTERMSIG(status);
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  c.report = text.str();
  unlink(path);
  return c;
}

TEST_CASE("A segfault is reported with a symbolized backtrace, then kills as before") {
  Crashed c = crash_child([] { crash_in_named_function(nullptr); });
  INFO(c.report);
  CHECK(c.signal == SIGSEGV);  // the default action still happens
  CHECK_THAT(c.report, Catch::Contains("k3c: fatal signal SIGSEGV at address 0x0 in thread "));
  CHECK_THAT(c.report, Catch::Contains("k3c: backtrace (offsets into "));
  if (access("/usr/bin/addr2line", X_OK) == 0) {
    CHECK_THAT(c.report, Catch::Contains("crash_in_named_function"));
    CHECK_THAT(c.report, Catch::Contains("crash_report_test.cpp:"));
  }
}

TEST_CASE("An abort is reported too") {
  Crashed c = crash_child([] { std::abort(); });
  CHECK(c.signal == SIGABRT);
  CHECK_THAT(c.report, Catch::Contains("k3c: fatal signal SIGABRT"));
}

}  // namespace
}  // namespace k3c

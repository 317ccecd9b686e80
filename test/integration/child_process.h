// ChildProcess: runs a program with exactly the arguments and environment given, its stdout
// and stderr going to files, for integration tests that drive the real k3c binary.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace k3c::testing {

class ChildProcess {
 public:
  // Starts `argv[0]` with `argv` and only the variables in `env`; output goes to
  // `<output_prefix>.out` and `<output_prefix>.err`.
  ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::string& output_prefix);
  // Kills the child if it still runs, and reaps it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void signal(int signo) const { kill(pid_, signo); }
  pid_t pid() const { return pid_; }
  // The exit code (128 + n when killed by signal n), or nullopt if it is still running
  // after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  std::string out() const;
  std::string err() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::string out_path_;
  std::string err_path_;
};

struct Finished {
  int exit_code = -1;  // -1: still running at the deadline (then killed)
  std::string out;
  std::string err;
};

// Runs a command to completion (at most `timeout`).
Finished run_to_end(const std::vector<std::string>& argv,
                    const std::map<std::string, std::string>& env, const std::string& output_prefix,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace k3c::testing

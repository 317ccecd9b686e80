// A child process a benchmark drives and measures: spawned with posix_spawn (stdin from
// /dev/null, stdout and stderr to files), its CPU time and VmRSS read from /proc, stopped with
// SIGTERM and then SIGKILL after a grace period. BenchServer (the k3c server) and the watch
// floor server (watch_floor.h) are both one.
//
// Ownership: a BenchProcess owns its child; destroying it stops the child.
// Thread-safety: stop() and exited() from the owner's thread; rss_bytes() and cpu_seconds()
// from any.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "bench_report.h"
#include "core/status.h"

namespace k3c::bench {

class BenchProcess {
 public:
  BenchProcess() = default;
  ~BenchProcess() { stop(); }
  BenchProcess(const BenchProcess&) = delete;
  BenchProcess& operator=(const BenchProcess&) = delete;

  // argv[0] is the program's path; `out`/`err` are the files stdout and stderr go to.
  Status spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::string& out, const std::string& err);
  pid_t pid() const { return pid_; }
  // Just before the exec.
  SteadyClock::time_point spawned_at() const { return spawned_at_; }
  // Whether the child has ended (reaping it); how it ended is then in ended().
  bool exited();
  const std::string& ended() const { return ended_; }

  // VmRSS; 0 when it cannot be read.
  int64_t rss_bytes() const;
  // User + system CPU time the child has used so far.
  double cpu_seconds() const;
  // SIGTERM, then SIGKILL when it has not exited after `grace`. Returns how it ended
  // ("exit 0", "killed by signal 9 after ignoring SIGTERM for 10 s", ...). Idempotent.
  std::string stop(std::chrono::seconds grace = std::chrono::seconds(10));

 private:
  pid_t pid_ = -1;
  SteadyClock::time_point spawned_at_;
  bool reaped_ = false;
  std::string ended_;
};

// The tail of a file (a child's stderr) for an error message.
std::string tail_of_file(const std::string& path, size_t bytes);

}  // namespace k3c::bench

// What every benchmark phase shares: the run's settings, scratch directories for databases,
// a way to run N threads against a deadline, and test values.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "core/status.h"

namespace k3c::bench {

// The settings of one run, from the command line.
struct BenchEnv {
  std::string root;    // this run's temporary directory; removed at exit
  int reps = 3;        // repetitions per measured configuration
  double scale = 1.0;  // multiplies every phase's duration (0.1 for a smoke run)

  std::chrono::nanoseconds scaled(double seconds) const {
    return std::chrono::nanoseconds(static_cast<int64_t>(seconds * scale * 1e9));
  }
};

// A new, empty directory under the run's root for one database; removed with all its files
// when this goes out of scope.
class ScratchDir {
 public:
  ScratchDir(const BenchEnv& env, const std::string& name);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return dir_; }
  std::string db_path() const { return dir_ + "/state.db"; }

 private:
  std::string dir_;
};

// The size of a file; 0 when it does not exist.
int64_t file_bytes(const std::string& path);
// Bytes on disk of an SQLite database in WAL mode: the main file plus its -wal file.
int64_t db_bytes(const std::string& db_path);

// A value of `size` printable bytes that differs with `seed`.
std::string make_value(size_t size, uint64_t seed);

// The size of every value the store benchmark writes: about a small object's JSON.
constexpr size_t kValueBytes = 1024;

// Runs body(thread_index, deadline) on `threads` threads that start together; each should
// stop starting new work at the deadline. Returns the seconds from the common start until
// the last thread returned (so work in flight at the deadline is counted in the time).
double run_threads(int threads, std::chrono::nanoseconds duration,
                   const std::function<void(int, std::chrono::steady_clock::time_point)>& body);

// The first error any of several threads saw (each thread stops at its first).
class FirstError {
 public:
  void record(const Status& s) {
    std::lock_guard lock(mu_);
    if (status_.is_ok()) status_ = s;
  }
  Status get() {
    std::lock_guard lock(mu_);
    return status_;
  }

 private:
  std::mutex mu_;  // guards status_
  Status status_;
};

}  // namespace k3c::bench

// ElasticPool: at most `max_threads` threads that exist only while there is work. A task
// starts a thread when none is idle (up to the maximum; past it tasks wait in order), and a
// thread idle for `idle_life` ends. An idle k3c server therefore keeps no handler threads: each
// would hold its stack's touched pages, a malloc arena's share and kernel state for nothing.
//
// Thread-safety: every method from any thread. stop() runs the tasks already submitted, then
// joins every thread; submit() after stop() runs nothing and returns false.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "core/thread_set.h"

namespace k3c {

class ElasticPool {
 public:
  // `name` (at most 15 bytes are kept) names the threads, as `top -H` and gdb show them.
  ElasticPool(std::string name, size_t max_threads,
              std::chrono::milliseconds idle_life = std::chrono::seconds(30));
  ~ElasticPool();
  ElasticPool(const ElasticPool&) = delete;
  ElasticPool& operator=(const ElasticPool&) = delete;

  bool submit(std::function<void()> task);
  void stop();

  size_t threads() const;  // alive now (for tests and figures)

 private:
  void run();

  const std::string name_;
  const size_t max_threads_;
  const std::chrono::milliseconds idle_life_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  ThreadSet threads_;
  size_t alive_ = 0, idle_ = 0;
  bool stopping_ = false;
};

}  // namespace k3c

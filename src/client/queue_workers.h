// The worker threads of one work queue, elastic: run(n) starts one worker, which stays. While
// any worker is busy one more is kept free to take the next key (up to n): it starts when a
// worker takes a key and leaves none free, and an extra worker ends after `idle_life` without
// a key unless it is that free one. An idle process thus keeps one thread per queue, and keys
// that block for long (a pod's grace period) hold up no other key while fewer than n do.
//
// A worker takes a key (a key is never given to two workers at once: the queue's rule) and
// calls `process(key)`, which must end with queue.done(key) (and forget or add_rate_limited
// as it decides).
//
// Thread-safety: every method from any thread. stop() shuts the queue down and joins the
// workers; run() after stop() starts nothing.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "client/work_queue.h"
#include "core/thread_set.h"

namespace k3c::client {

class QueueWorkers {
 public:
  // `name` (at most 15 bytes kept) names the threads, as `top -H` shows them.
  QueueWorkers(std::string name, WorkQueue& queue,
               std::function<void(const std::string& key)> process,
               std::chrono::milliseconds idle_life = std::chrono::seconds(30));
  ~QueueWorkers();
  QueueWorkers(const QueueWorkers&) = delete;
  QueueWorkers& operator=(const QueueWorkers&) = delete;

  void run(int max_workers);
  void stop();
  int live() const;  // for tests and figures

 private:
  void work(bool stays);
  // After a worker took a key: one more worker when none is left free.
  void grow_if_behind();

  const std::string name_;
  WorkQueue& queue_;
  const std::function<void(const std::string&)> process_;
  const std::chrono::milliseconds idle_life_;
  mutable std::mutex mu_;  // guards all below
  int max_workers_ = 0, live_ = 0, busy_ = 0;
  bool stopped_ = false;
  ThreadSet workers_;  // the extra ones end on their own
};

}  // namespace k3c::client

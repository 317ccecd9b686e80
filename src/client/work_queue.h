// The controllers' work queue, with upstream's guarantees: a key queued many times is
// processed once; a key is never handed to two workers at once (a key added while it is being
// processed is queued again when done() is called); failed keys come back after a per-key
// exponential backoff (5 ms doubling to 1000 s, reset by forget()); add_after() delays a key
// (a key waits once, for the earliest of the delays asked).
// Bounded by the number of distinct keys, which the informers' caches bound.
//
// Thread-safety: every method from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/clock.h"

namespace k3c::client {

class WorkQueue {
 public:
  using Duration = std::chrono::nanoseconds;
  explicit WorkQueue(const Clock& clock = SystemClock::instance(),
                     Duration base_delay = std::chrono::milliseconds(5),
                     Duration max_delay = std::chrono::seconds(1000));

  void add(const std::string& key);
  void add_after(const std::string& key, Duration delay);
  // After a failure: again after this key's next backoff step.
  void add_rate_limited(const std::string& key);
  // The key succeeded: its backoff starts over.
  void forget(const std::string& key);
  int failures(const std::string& key) const;

  // The next key to process; blocks until one is ready. nullopt once shut down.
  std::optional<std::string> get();
  // Like get() but gives up after `wait` (nullopt also when shut down).
  std::optional<std::string> get_for(Duration wait);
  // Processing of `key` (from get()) finished.
  void done(const std::string& key);
  void shut_down();
  bool is_shut_down() const;
  size_t length() const;

 private:
  void add_locked(const std::string& key);
  void promote_due_locked();

  const Clock& clock_;
  const Duration base_delay_, max_delay_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;                 // queued or to be queued when done
  std::unordered_set<std::string> processing_;            // handed out, not done yet
  std::multimap<Clock::TimePoint, std::string> waiting_;  // add_after()
  std::unordered_map<std::string, Clock::TimePoint> waiting_at_;  // each key's entry in waiting_
  std::unordered_map<std::string, int> failures_;
  bool shutting_down_ = false;
};

}  // namespace k3c::client

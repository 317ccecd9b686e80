// The scheduling queue, as upstream's PriorityQueue: pending pods wait in one of three places.
//
//   active         ready to be tried, highest spec.priority first, then the longest waiting
//   backoff        failed recently; back to active when its backoff (initial doubling per
//                  attempt up to the maximum) has run out
//   unschedulable  fit nowhere; back when an event suggests it might fit now (move_all), or
//                  after `max_in_unschedulable` at the latest
//
// A pod taken by pop() is "in flight" until the caller reports the outcome: done() (bound or
// gone), requeue_unschedulable() or requeue_backoff(). A pod that fails while an event that
// could help it arrived during its attempt goes to backoff instead of unschedulable, so that
// the event is not lost (upstream's moveRequestCycle).
//
// Keys are "namespace/name"; the queue holds at most one entry per key, so it is bounded by the
// pending pods the informer sees. Time comes from the Clock seam.
//
// Threads: every method from any thread; pop() blocks (waiting in real time) up to its limit.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "client/informer.h"
#include "core/clock.h"
#include "roles/scheduler/model.h"

namespace k3c::scheduler {

struct QueueSettings {
  Clock::Duration initial_backoff = std::chrono::seconds(1);
  Clock::Duration max_backoff = std::chrono::seconds(10);
  Clock::Duration max_in_unschedulable = std::chrono::minutes(5);
};

struct QueuedPod {
  PodPtr info;
  client::ObjectPtr object;      // what events about the pod name (the role keeps no more)
  int attempts = 0;              // pops so far
  Clock::TimePoint timestamp{};  // when it (re)entered the queue: orders pods of equal priority
  uint64_t cycle = 0;            // the scheduling cycle of its last pop

  std::string key() const { return info->key(); }
};

class SchedulingQueue {
 public:
  explicit SchedulingQueue(const Clock& clock, QueueSettings settings = {});

  // A pending pod this scheduler is responsible for appeared or changed. `spec_changed`: more
  // than its status changed (only then does an unschedulable pod get another try at once).
  void add_or_update(PodPtr info, client::ObjectPtr object, bool spec_changed = true);
  // The pod was deleted, bound, or is no longer ours.
  void remove(const std::string& key);
  // Something changed that may let unschedulable pods fit (a node came or changed, a pod went):
  // they move to active (or backoff while still backing off). `which`: only these.
  void move_all(const std::function<bool(const PodInfo&)>& which = {});

  // The next pod to try; waits up to `wait` for one. nullopt when none or closed.
  std::optional<QueuedPod> pop(Clock::Duration wait);
  void done(const std::string& key);
  void requeue_unschedulable(const QueuedPod& pod);
  void requeue_backoff(const QueuedPod& pod);
  // Wakes and ends every pop().
  void close();

  // Where a key is, for tests and logs: "active", "backoff", "unschedulable", "in-flight", "".
  std::string where(const std::string& key) const;
  size_t size() const;
  // The backoff after `attempts` tries: initial * 2^(attempts-1), at most the maximum.
  Clock::Duration backoff_for(int attempts) const;

 private:
  enum class Place { kActive, kBackoff, kUnschedulable, kInFlight };
  struct Entry {
    QueuedPod pod;
    Place place = Place::kActive;
    uint64_t seq = 0;  // tie-break and identity in the ordered sets
    bool changed_in_flight = false;
    bool removed_in_flight = false;
  };
  // Active order: priority (high first), then timestamp, then arrival.
  struct ActiveKey {
    int32_t priority;
    Clock::TimePoint timestamp;
    uint64_t seq;
    std::string key;
    bool operator<(const ActiveKey& o) const {
      if (priority != o.priority) return priority > o.priority;
      if (timestamp != o.timestamp) return timestamp < o.timestamp;
      return seq < o.seq;
    }
  };
  using BackoffKey = std::tuple<Clock::TimePoint, uint64_t, std::string>;

  Clock::TimePoint backoff_expiry(const QueuedPod& pod) const;
  void place_locked(Entry& entry, Place place);
  void unplace_locked(Entry& entry);
  // Active when its backoff is over, backoff otherwise.
  void activate_or_backoff_locked(Entry& entry);
  void flush_locked();

  const Clock& clock_;
  const QueueSettings settings_;
  mutable std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::unordered_map<std::string, Entry> entries_;
  std::set<ActiveKey> active_;
  std::set<BackoffKey> backoff_;
  std::unordered_set<std::string> unschedulable_;  // keys of the entries in kUnschedulable
  uint64_t next_seq_ = 0;
  uint64_t scheduling_cycle_ = 0;
  uint64_t move_request_cycle_ = 0;
  Clock::TimePoint last_unschedulable_flush_{};
  bool closed_ = false;
};

}  // namespace k3c::scheduler

// The scheduling queue (see scheduling_queue.h).
#include "roles/scheduler/role/scheduling_queue.h"

#include <algorithm>
#include <vector>

namespace k3c::scheduler {

namespace {
// How often unschedulable pods are checked for having waited too long (upstream: 30 s).
constexpr auto kUnschedulableFlushPeriod = std::chrono::seconds(30);
// pop() re-checks the backoff queue at least this often while it waits.
constexpr auto kMaxWaitStep = std::chrono::milliseconds(500);
}  // namespace

SchedulingQueue::SchedulingQueue(const Clock& clock, QueueSettings settings)
    : clock_(clock), settings_(settings), last_unschedulable_flush_(clock.now()) {}

Clock::Duration SchedulingQueue::backoff_for(int attempts) const {
  Clock::Duration d = settings_.initial_backoff;
  for (int i = 1; i < attempts && d < settings_.max_backoff; ++i) d *= 2;
  return std::min(d, settings_.max_backoff);
}

Clock::TimePoint SchedulingQueue::backoff_expiry(const QueuedPod& pod) const {
  return pod.timestamp + backoff_for(pod.attempts);
}

void SchedulingQueue::place_locked(Entry& entry, Place place) {
  entry.place = place;
  const QueuedPod& p = entry.pod;
  if (place == Place::kActive) {
    active_.insert({p.info->priority, p.timestamp, entry.seq, p.key()});
    cv_.notify_one();
  } else if (place == Place::kBackoff) {
    backoff_.insert({backoff_expiry(p), entry.seq, p.key()});
    cv_.notify_one();  // a waiting pop() recomputes how long to sleep
  } else if (place == Place::kUnschedulable) {
    unschedulable_.insert(p.key());
  }
}

void SchedulingQueue::unplace_locked(Entry& entry) {
  const QueuedPod& p = entry.pod;
  if (entry.place == Place::kActive) {
    active_.erase({p.info->priority, p.timestamp, entry.seq, p.key()});
  } else if (entry.place == Place::kBackoff) {
    backoff_.erase({backoff_expiry(p), entry.seq, p.key()});
  } else if (entry.place == Place::kUnschedulable) {
    unschedulable_.erase(p.key());
  }
}

void SchedulingQueue::activate_or_backoff_locked(Entry& entry) {
  unplace_locked(entry);  // no-op for an entry already taken out
  bool backing_off = entry.pod.attempts > 0 && backoff_expiry(entry.pod) > clock_.now();
  place_locked(entry, backing_off ? Place::kBackoff : Place::kActive);
}

void SchedulingQueue::add_or_update(PodPtr info, client::ObjectPtr object, bool spec_changed) {
  std::lock_guard lock(mu_);
  if (closed_) return;
  std::string key = info->key();
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    Entry entry;
    entry.pod.info = std::move(info);
    entry.pod.object = std::move(object);
    entry.pod.timestamp = clock_.now();
    entry.seq = next_seq_++;
    auto [at, inserted] = entries_.emplace(key, std::move(entry));
    place_locked(at->second, Place::kActive);
    return;
  }
  Entry& entry = it->second;
  if (entry.place == Place::kInFlight) {
    // Applied when the attempt ends; a changed pod is then tried again rather than parked.
    if (entry.removed_in_flight || entry.pod.info->uid != info->uid) entry.pod.attempts = 0;
    entry.pod.info = std::move(info);
    entry.pod.object = std::move(object);
    entry.changed_in_flight = entry.changed_in_flight || spec_changed || entry.removed_in_flight;
    entry.removed_in_flight = false;
    return;
  }
  Place was = entry.place;
  unplace_locked(entry);
  entry.pod.info = std::move(info);
  entry.pod.object = std::move(object);
  if (was == Place::kUnschedulable && spec_changed) {
    activate_or_backoff_locked(entry);
  } else {
    place_locked(entry, was);
  }
}

void SchedulingQueue::remove(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  if (it->second.place == Place::kInFlight) {
    it->second.removed_in_flight = true;
    return;
  }
  unplace_locked(it->second);
  entries_.erase(it);
}

void SchedulingQueue::move_all(const std::function<bool(const PodInfo&)>& which) {
  std::lock_guard lock(mu_);
  move_request_cycle_ = scheduling_cycle_;
  // Only the parked pods are walked (every bind calls this: walking all the queued pods made
  // a large rollout quadratic). A copy, as activating takes a key out of the index.
  const std::vector<std::string> parked(unschedulable_.begin(), unschedulable_.end());
  for (const std::string& key : parked) {
    Entry& entry = entries_.at(key);
    if (which && !which(*entry.pod.info)) continue;
    activate_or_backoff_locked(entry);
  }
}

void SchedulingQueue::flush_locked() {
  Clock::TimePoint now = clock_.now();
  while (!backoff_.empty() && std::get<0>(*backoff_.begin()) <= now) {
    std::string key = std::get<2>(*backoff_.begin());
    backoff_.erase(backoff_.begin());
    Entry& entry = entries_.at(key);
    place_locked(entry, Place::kActive);
  }
  if (now - last_unschedulable_flush_ < kUnschedulableFlushPeriod) return;
  last_unschedulable_flush_ = now;
  const std::vector<std::string> parked(unschedulable_.begin(), unschedulable_.end());
  for (const std::string& key : parked) {
    Entry& entry = entries_.at(key);
    if (now - entry.pod.timestamp >= settings_.max_in_unschedulable)
      activate_or_backoff_locked(entry);
  }
}

std::optional<QueuedPod> SchedulingQueue::pop(Clock::Duration wait) {
  std::unique_lock lock(mu_);
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (!closed_) {
    flush_locked();
    if (!active_.empty()) {
      std::string key = active_.begin()->key;
      active_.erase(active_.begin());
      Entry& entry = entries_.at(key);
      entry.place = Place::kInFlight;
      entry.changed_in_flight = false;
      entry.pod.attempts++;
      entry.pod.cycle = ++scheduling_cycle_;
      return entry.pod;
    }
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= Clock::Duration::zero()) break;
    Clock::Duration step = std::min<Clock::Duration>(left, kMaxWaitStep);
    if (!backoff_.empty()) {
      step = std::min(step, std::max<Clock::Duration>(std::get<0>(*backoff_.begin()) - clock_.now(),
                                                      std::chrono::milliseconds(1)));
    }
    cv_.wait_for(lock, step);
  }
  return std::nullopt;
}

void SchedulingQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.place != Place::kInFlight) return;
  Entry& entry = it->second;
  if (entry.changed_in_flight && !entry.removed_in_flight) {
    // Replaced by a new pod of the same name during the attempt: that one still waits.
    entry.pod.timestamp = clock_.now();
    activate_or_backoff_locked(entry);
    return;
  }
  entries_.erase(it);
}

void SchedulingQueue::requeue_unschedulable(const QueuedPod& pod) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(pod.key());
  if (it == entries_.end() || it->second.place != Place::kInFlight) return;
  Entry& entry = it->second;
  if (entry.removed_in_flight) {
    entries_.erase(it);
    return;
  }
  entry.pod.timestamp = clock_.now();
  if (entry.changed_in_flight || move_request_cycle_ >= pod.cycle) {
    activate_or_backoff_locked(entry);
  } else {
    place_locked(entry, Place::kUnschedulable);
  }
}

void SchedulingQueue::requeue_backoff(const QueuedPod& pod) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(pod.key());
  if (it == entries_.end() || it->second.place != Place::kInFlight) return;
  if (it->second.removed_in_flight) {
    entries_.erase(it);
    return;
  }
  it->second.pod.timestamp = clock_.now();
  place_locked(it->second, Place::kBackoff);
}

void SchedulingQueue::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

std::string SchedulingQueue::where(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return "";
  switch (it->second.place) {
    case Place::kActive:
      return "active";
    case Place::kBackoff:
      return "backoff";
    case Place::kUnschedulable:
      return "unschedulable";
    case Place::kInFlight:
      return "in-flight";
  }
  return "";
}

size_t SchedulingQueue::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace k3c::scheduler

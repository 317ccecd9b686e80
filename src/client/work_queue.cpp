#include "client/work_queue.h"

#include <algorithm>

namespace k3c::client {

WorkQueue::WorkQueue(const Clock& clock, Duration base_delay, Duration max_delay)
    : clock_(clock), base_delay_(base_delay), max_delay_(max_delay) {}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_ || dirty_.count(key)) return;
  dirty_.insert(key);
  if (processing_.count(key)) return;  // queued again by done()
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  add_locked(key);
}

void WorkQueue::add_after(const std::string& key, Duration delay) {
  if (delay <= Duration::zero()) return add(key);
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  // One pending delay per key, the earliest (as upstream's delaying queue): a controller that
  // re-arms its periodic look on every pass must not grow a new timer chain per event.
  const Clock::TimePoint ready = clock_.now() + delay;
  if (auto known = waiting_at_.find(key); known != waiting_at_.end()) {
    if (known->second <= ready) return;
    auto range = waiting_.equal_range(known->second);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second == key) {
        waiting_.erase(it);
        break;
      }
    }
  }
  waiting_at_[key] = ready;
  waiting_.emplace(ready, key);
  cv_.notify_all();  // a sleeping get() may need to wake earlier
}

void WorkQueue::add_rate_limited(const std::string& key) {
  Duration delay;
  {
    std::lock_guard lock(mu_);
    int n = failures_[key]++;
    delay = base_delay_;
    for (int i = 0; i < n && delay < max_delay_; ++i) delay *= 2;
    delay = std::min(delay, max_delay_);
  }
  add_after(key, delay);
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int WorkQueue::failures(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::promote_due_locked() {
  auto now = clock_.now();
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    std::string key = std::move(waiting_.begin()->second);
    waiting_.erase(waiting_.begin());
    waiting_at_.erase(key);
    add_locked(key);
  }
}

std::optional<std::string> WorkQueue::get() { return get_for(Duration::max()); }

std::optional<std::string> WorkQueue::get_for(Duration wait) {
  std::unique_lock lock(mu_);
  // `wait` is real time; delays (add_after) follow the queue's clock, which tests drive.
  using Real = std::chrono::steady_clock;
  auto give_up = wait == Duration::max() ? Real::time_point::max() : Real::now() + wait;
  while (true) {
    promote_due_locked();
    if (!queue_.empty()) break;
    if (shutting_down_) return std::nullopt;
    auto now = Real::now();
    if (now >= give_up) return std::nullopt;
    Duration gap = give_up == Real::time_point::max() ? Duration::max() : give_up - now;
    if (!waiting_.empty()) {
      // At most 50 ms at a time, so that a test clock that jumps is noticed.
      gap = std::min<Duration>(gap, waiting_.begin()->first - clock_.now());
      gap = std::clamp<Duration>(gap, Duration(0), std::chrono::milliseconds(50));
    }
    if (gap == Duration::max()) {
      cv_.wait(lock);
    } else {
      cv_.wait_for(lock, gap);
    }
  }
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  dirty_.erase(key);
  processing_.insert(key);
  return key;
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  if (dirty_.count(key)) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::shut_down() {
  std::lock_guard lock(mu_);
  shutting_down_ = true;
  cv_.notify_all();
}

bool WorkQueue::is_shut_down() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::length() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace k3c::client

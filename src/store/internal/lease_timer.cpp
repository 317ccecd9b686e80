// Lease expiry bookkeeping (see lease_timer.h).
#include "store/internal/lease_timer.h"

#include <chrono>

namespace k3c::store::internal {

void LeaseTimer::arm(const std::string& key, int64_t revision, int64_t ttl_seconds,
                     Clock::TimePoint now) {
  std::lock_guard lock(mu_);
  auto due = now + std::chrono::seconds(ttl_seconds);
  auto [it, inserted] = by_key_.try_emplace(key, Entry{due, revision});
  if (!inserted) {
    by_due_.erase({it->second.due, key});
    it->second = Entry{due, revision};
  }
  by_due_.emplace(due, key);
}

void LeaseTimer::disarm(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  by_due_.erase({it->second.due, key});
  by_key_.erase(it);
}

std::vector<LeaseTimer::Expired> LeaseTimer::take_expired(Clock::TimePoint now) {
  std::lock_guard lock(mu_);
  std::vector<Expired> out;
  while (!by_due_.empty() && by_due_.begin()->first <= now) {
    auto node = by_due_.extract(by_due_.begin());
    auto it = by_key_.find(node.value().second);
    out.push_back({it->first, it->second.revision});
    by_key_.erase(it);
  }
  return out;
}

size_t LeaseTimer::size() const {
  std::lock_guard lock(mu_);
  return by_key_.size();
}

}  // namespace k3c::store::internal

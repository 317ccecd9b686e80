// Per-key exponential backoff (see backoff.h).
#include "roles/kubelet/pods/backoff.h"

#include <algorithm>

namespace k3c::kubelet {

Backoff::Backoff(const Clock& clock, Duration initial, Duration max)
    : clock_(clock), initial_(initial), max_(max) {}

bool Backoff::in_backoff_since(const std::string& key, WallTime event) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || expired(event, it->second.last_update)) return false;
  return clock_.wall_now() - event < it->second.delay;
}

bool Backoff::in_backoff_since_update(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  const WallTime now = clock_.wall_now();
  if (it == entries_.end() || expired(now, it->second.last_update)) return false;
  return now - it->second.last_update < it->second.delay;
}

void Backoff::next(const std::string& key, WallTime event) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (inserted || expired(event, e.last_update)) {
    e.delay = initial_;
  } else {
    e.delay = std::min(e.delay * 2, max_);
  }
  e.last_update = clock_.wall_now();
}

Backoff::Duration Backoff::get(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? Duration{} : it->second.delay;
}

WallTime Backoff::last_update(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? WallTime{} : it->second.last_update;
}

void Backoff::gc() {
  std::lock_guard lock(mu_);
  const WallTime now = clock_.wall_now();
  std::erase_if(entries_, [&](const auto& kv) { return expired(now, kv.second.last_update); });
}

void Backoff::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

std::string go_duration(std::chrono::nanoseconds d) {
  using namespace std::chrono;
  if (d < seconds(1)) {
    const auto ms = duration_cast<milliseconds>(d).count();
    return ms == 0 ? "0s" : std::to_string(ms) + "ms";
  }
  auto total = duration_cast<seconds>(d).count();
  const auto h = total / 3600, m = total % 3600 / 60, s = total % 60;
  if (h > 0) return std::to_string(h) + "h" + std::to_string(m) + "m" + std::to_string(s) + "s";
  if (m > 0) return std::to_string(m) + "m" + std::to_string(s) + "s";
  return std::to_string(s) + "s";
}

}  // namespace k3c::kubelet

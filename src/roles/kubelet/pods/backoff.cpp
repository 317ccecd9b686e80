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
  const auto ms_total = duration_cast<milliseconds>(d).count();  // millisecond precision
  if (ms_total == 0) return "0s";
  if (ms_total < 1000) return std::to_string(ms_total) + "ms";
  const auto total = ms_total / 1000, ms = ms_total % 1000;
  const auto h = total / 3600, m = total % 3600 / 60, sec = total % 60;
  std::string seconds = std::to_string(sec);
  if (ms != 0) {
    std::string frac = std::to_string(1000 + ms).substr(1);  // 3 digits
    while (frac.back() == '0') frac.pop_back();
    seconds += "." + frac;
  }
  if (h > 0) return std::to_string(h) + "h" + std::to_string(m) + "m" + seconds + "s";
  if (m > 0) return std::to_string(m) + "m" + seconds + "s";
  return seconds + "s";
}

}  // namespace k3c::kubelet

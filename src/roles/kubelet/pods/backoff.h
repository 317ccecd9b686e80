// Per-key exponential backoff on wall time, as upstream's flowcontrol.Backoff that the kubelet
// uses for restarting crashed containers (CrashLoopBackOff) and for image pulls
// (ImagePullBackOff): the first step waits `initial` (10 s), each next step doubles up to
// `max` (5 min); an event more than 2 x max after the last step starts over (a container
// that ran for 10 minutes is "stable" again).
//
// Thread-safety: every method from any thread.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "core/clock.h"

namespace k3c::kubelet {

using WallTime = std::chrono::system_clock::time_point;

class Backoff {
 public:
  using Duration = std::chrono::nanoseconds;
  explicit Backoff(const Clock& clock, Duration initial = std::chrono::seconds(10),
                   Duration max = std::chrono::minutes(5));

  // The key's delay has not yet passed since `event` (a container's finish time).
  bool in_backoff_since(const std::string& key, WallTime event) const;
  // The key's delay has not yet passed since its last step (image pulls).
  bool in_backoff_since_update(const std::string& key) const;
  // Takes a step at `event`: the first (or first after a stable period) sets `initial`,
  // later ones double.
  void next(const std::string& key, WallTime event);
  // The key's current delay (0 when unknown).
  Duration get(const std::string& key) const;
  // The wall time the key's last step was taken at (epoch when unknown).
  WallTime last_update(const std::string& key) const;
  // Drops entries idle for more than 2 x max.
  void gc();
  void forget(const std::string& key);

 private:
  struct Entry {
    Duration delay{};
    WallTime last_update{};
  };
  bool expired(WallTime event, WallTime last_update) const {
    return event - last_update > 2 * max_;
  }

  const Clock& clock_;
  const Duration initial_, max_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // guarded by mu_
};

// A duration to the millisecond as Go prints it (time.Duration.String): "10s", "1m20s",
// "5m0s", "1h0m0s", "1.25s", "512ms"; upstream's back-off and pull messages carry it.
std::string go_duration(std::chrono::nanoseconds d);

}  // namespace k3c::kubelet

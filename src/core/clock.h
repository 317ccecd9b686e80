// The clock seam: production code reads time through a Clock passed in by its owner, so
// tests (and the accelerated churn benchmark) can control time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace k3c {

// Thread-safe: every method may be called from any thread.
class Clock {
 public:
  using Duration = std::chrono::nanoseconds;
  using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

  virtual ~Clock() = default;
  // Monotonic time, for deadlines, intervals and TTLs.
  virtual TimePoint now() const = 0;
  // Wall-clock time, for timestamps written into objects.
  virtual std::chrono::system_clock::time_point wall_now() const = 0;
};

// The real clocks. Safe to share: it holds no state.
class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point wall_now() const override {
    return std::chrono::system_clock::now();
  }
  // A process-wide instance for owners that have no clock of their own to pass in.
  static const SystemClock& instance() {
    static const SystemClock clock;
    return clock;
  }
};

// A clock that moves only when told to; for tests and accelerated benchmarks.
class ManualClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(Duration(ns_.load())); }
  std::chrono::system_clock::time_point wall_now() const override {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(Duration(ns_.load())));
  }
  void advance(Duration d) { ns_.fetch_add(d.count()); }

 private:
  std::atomic<int64_t> ns_{int64_t{1'700'000'000} * 1'000'000'000};
};

}  // namespace k3c

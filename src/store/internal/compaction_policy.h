// Which revision automatic compaction may compact to: history is kept for at least
// `retain_revisions` revisions and at least `retain_time`, whichever keeps more. The policy
// remembers when each revision was current by sampling (revision, time) at every
// maintenance tick; time comes from the clock seam so benchmarks can accelerate it.
//
// Not thread-safe: the store's maintenance thread owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <utility>

#include "core/clock.h"

namespace k3c::store::internal {

class CompactionPolicy {
 public:
  CompactionPolicy(int64_t retain_revisions, std::chrono::seconds retain_time)
      : retain_revisions_(retain_revisions), retain_time_(retain_time) {}

  // Records that `current` was the newest revision at `now`, and returns the revision that
  // may be compacted to (0 = nothing yet).
  int64_t target(int64_t current, Clock::TimePoint now);

 private:
  const int64_t retain_revisions_;
  const std::chrono::seconds retain_time_;
  std::deque<std::pair<Clock::TimePoint, int64_t>> samples_;  // oldest first
};

}  // namespace k3c::store::internal

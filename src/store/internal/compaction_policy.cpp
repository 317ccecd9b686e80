// Automatic compaction target (see compaction_policy.h).
#include "store/internal/compaction_policy.h"

#include <algorithm>

namespace k3c::store::internal {

int64_t CompactionPolicy::target(int64_t current, Clock::TimePoint now) {
  if (samples_.empty() || samples_.back().second != current) samples_.emplace_back(now, current);
  const auto horizon = now - retain_time_;
  // Keep the newest sample at or before the horizon: the revision that was current then
  // is the highest one that is at least retain_time old.
  while (samples_.size() > 1 && samples_[1].first <= horizon) samples_.pop_front();
  int64_t by_time = samples_.front().first <= horizon ? samples_.front().second : 0;
  if (retain_time_.count() == 0) by_time = current;
  int64_t by_count = current - retain_revisions_;
  return std::max<int64_t>(0, std::min(by_time, by_count));
}

}  // namespace k3c::store::internal

// Upstream's event aggregation and spam filter (see event_correlator.h).
#include "client/event_correlator.h"

#include <algorithm>

namespace k3c::client {

namespace {
constexpr size_t kMaxSimilar = 10;                          // maxEvents
constexpr auto kAggregateInterval = std::chrono::minutes(10);  // maxIntervalInSeconds
constexpr double kBurst = 25;                               // defaultSpamBurst
constexpr double kRefillPerSecond = 1.0 / 300;              // defaultSpamQPS
constexpr size_t kCacheEntries = 4096;                      // maxLruCacheEntries
}  // namespace

Correlation EventCorrelator::correlate(const std::string& object_key,
                                       const std::string& aggregate_key,
                                       const std::string& event_key, const std::string& message) {
  Correlation out{false, message, event_key};
  if (aggregates_.size() >= kCacheEntries && !aggregates_.count(aggregate_key))
    aggregates_.clear();
  auto& aggregate = aggregates_[aggregate_key];
  auto now = clock_.now();
  // An aggregate lapses 10 minutes after its last Event.
  if (now - aggregate.last > kAggregateInterval) aggregate.messages.clear();
  aggregate.last = now;
  aggregate.messages.insert(message);
  if (aggregate.messages.size() >= kMaxSimilar) {
    out.message = "(combined from similar events): " + message;
    out.dedupe_key = aggregate_key;
    aggregate.messages.erase(aggregate.messages.begin());  // no larger than that
  }
  out.skip = !take_token(object_key);
  return out;
}

bool EventCorrelator::take_token(const std::string& object_key) {
  auto now = clock_.now();
  if (buckets_.size() >= kCacheEntries && !buckets_.count(object_key)) buckets_.clear();
  auto [it, fresh] = buckets_.try_emplace(object_key, Bucket{kBurst, now});
  Bucket& b = it->second;
  if (!fresh) {
    double elapsed = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(kBurst, b.tokens + std::max(0.0, elapsed) * kRefillPerSecond);
    b.at = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

}  // namespace k3c::client

// What becomes of an Event before it is written, as upstream's EventCorrelator
// (client-go tools/record/events_cache.go) decides it:
//  - aggregation: once 10 Events with different messages come from one source about one object
//    with one type and reason within 10 minutes, further ones become a single Event
//    "(combined from similar events): <latest message>" whose count goes up;
//  - spam filter: each source and object has a token bucket of 25 Events, refilled at one per
//    5 minutes; an Event (or count update) without a token is dropped.
// So a ReplicaSet creating 10,000 pods makes about 25 SuccessfulCreate writes, not 10,000.
//
// Threads: one caller at a time (the recorder's writer thread).
#pragma once

#include <map>
#include <set>
#include <string>

#include "core/clock.h"

namespace k3c::client {

struct Correlation {
  bool skip = false;        // the spam filter drops it
  std::string message;      // as written (the combined form once aggregated)
  std::string dedupe_key;   // Events with one key are one Event whose count goes up
};

class EventCorrelator {
 public:
  explicit EventCorrelator(const Clock& clock) : clock_(clock) {}

  // `object_key`: the source and the involved object; `aggregate_key`: that plus type and
  // reason; `event_key`: the key of this very Event (object, field path, reason, message).
  Correlation correlate(const std::string& object_key, const std::string& aggregate_key,
                        const std::string& event_key, const std::string& message);

 private:
  struct Aggregate {
    std::set<std::string> messages;
    Clock::TimePoint last;
  };
  struct Bucket {
    double tokens = 0;
    Clock::TimePoint at;
  };
  bool take_token(const std::string& object_key);

  const Clock& clock_;
  // Bounded as upstream's LRU caches (4,096 entries): cleared when full, which only forgets.
  std::map<std::string, Aggregate> aggregates_;
  std::map<std::string, Bucket> buckets_;
};

}  // namespace k3c::client

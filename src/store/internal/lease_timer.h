// Leases: one timer structure for every key with a TTL (not one timer per key). Entries are
// ordered by expiry; a key written again replaces its entry, and a key deleted loses it.
// Expiry is re-armed from the TTL when the store opens (kine does the same): a restart
// extends a lease, it never cuts one short.
//
// Thread-safety: every method from any thread; mu_ guards the two indexes.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"

namespace k3c::store::internal {

class LeaseTimer {
 public:
  struct Expired {
    std::string key;
    int64_t revision;  // delete only if the key is still at this revision
  };

  // Arms (or re-arms) `key`, written at `revision`, to expire `ttl_seconds` after `now`.
  void arm(const std::string& key, int64_t revision, int64_t ttl_seconds, Clock::TimePoint now);
  // Forgets `key` (deleted, or rewritten without a lease).
  void disarm(const std::string& key);
  // Removes and returns the entries due at `now`, soonest first.
  std::vector<Expired> take_expired(Clock::TimePoint now);
  size_t size() const;

 private:
  struct Entry {
    Clock::TimePoint due;
    int64_t revision;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> by_key_;
  std::set<std::pair<Clock::TimePoint, std::string>> by_due_;
};

}  // namespace k3c::store::internal

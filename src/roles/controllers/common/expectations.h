// Controller expectations (upstream's ControllerExpectations): after a controller asks for N
// creations or deletions it waits until its informer has seen them before deciding again,
// so a lagging cache never makes it create or delete twice. Expectations lapse after five
// minutes (a watch event lost for good must not wedge the controller).
//
// Thread-safety: every method from any thread.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "core/clock.h"

namespace k3c::controllers {

class Expectations {
 public:
  explicit Expectations(const Clock& clock = SystemClock::instance()) : clock_(clock) {}
  void expect(const std::string& key, int creations, int deletions);
  void creation_observed(const std::string& key) { lower(key, 1, 0); }
  void deletion_observed(const std::string& key) { lower(key, 0, 1); }
  void lower(const std::string& key, int creations, int deletions);
  bool satisfied(const std::string& key) const;
  void forget(const std::string& key);

 private:
  struct Entry {
    int creations = 0;
    int deletions = 0;
    Clock::TimePoint at;
  };
  const Clock& clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace k3c::controllers

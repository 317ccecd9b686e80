// Records core/v1 Events about objects, as upstream's event recorder (client-go's
// tools/record), for every role that reports what it does (controllers, scheduler): on a background
// thread through a bounded queue (a burst of events never slows a controller; past the bound events
// are dropped and counted), the same reason and message on the same object within 10 minutes
// updates the existing Event's count instead of creating another, and upstream's aggregation and
// spam filter (event_correlator.h) bound what one source writes about one object.
//
// Threads: record() from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "client/client.h"
#include "client/event_correlator.h"
#include "core/clock.h"

namespace k3c::client {

class EventRecorder {
 public:
  EventRecorder(Client& client, std::string component,
                const Clock& clock = SystemClock::instance());
  ~EventRecorder();
  // `object` is the involved object (apiVersion, kind and metadata are read).
  // `source`: the reporting component shown in `kubectl describe` (FROM); "" = the
  // recorder's own. `field_path`: the part of the object the event is about
  // (involvedObject.fieldPath, e.g. "spec.containers{web}" for the kubelet's container events).
  void record(const nlohmann::json& object, const std::string& type, const std::string& reason,
              const std::string& message, const std::string& source = "",
              const std::string& field_path = "");
  void stop();
  size_t dropped() const;

 private:
  struct Pending {
    nlohmann::json involved;
    std::string ns, type, reason, message, source;
  };
  void run();
  void write(const Pending& e);

  Client& client_;
  const std::string component_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  size_t dropped_ = 0;
  // dedupe key (event_correlator.h) -> (event name, count, first seen) for counting.
  struct Seen {
    std::string name;
    int count = 0;
    Clock::TimePoint at;
    std::string first_timestamp;
  };
  std::map<std::string, Seen> seen_;  // writer thread only
  EventCorrelator correlator_{clock_};  // writer thread only
  std::thread thread_;
};

}  // namespace k3c::client

// A watch as an HTTP body: the cache's events serialized as upstream's JSON event stream
// ({"type":"ADDED","object":{...}} per line), with BOOKMARK events when asked for, the
// initial-events-end bookmark for sendInitialEvents, and the watch's timeout.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "core/clock.h"
#include "http/http.h"
#include "roles/apiserver/table.h"
#include "roles/apiserver/watch_cache.h"

namespace k3c::apiserver {

struct WatchStreamOptions {
  std::string api_version;  // of the watched resource, for BOOKMARK objects
  std::string kind;
  bool bookmarks = false;                  // allowWatchBookmarks
  bool initial_events_end = false;         // sendInitialEvents: bookmark after the initial ADDEDs
  size_t initial_events = 0;               // how many synthetic ADDEDs come first
  bool table = false;                      // objects as meta.k8s.io Tables with one row
  std::string group;                       // for the table printer
  std::shared_ptr<const Printer> printer;  // instead of the kind's printer (custom resources)
  IncludeObject include = IncludeObject::kMetadata;  // row objects of table events
  Clock::TimePoint deadline;                         // end of the watch (timeoutSeconds)
  // Objects are converted to this apiVersion (a kind stored in another version); "" = as
  // cached.
  std::string convert_to;
};

class WatchStream final : public http::BodyStream {
 public:
  WatchStream(std::unique_ptr<CacheWatcher> watcher, WatchCache& cache, const Clock& clock,
              WatchStreamOptions options);
  void set_wake(std::function<void()> wake) override;
  Chunk poll() override;
  void cancel() override;

 private:
  std::string bookmark(int64_t revision, bool initial_end) const;
  std::string object_of(const CachedObject& o);

  std::unique_ptr<CacheWatcher> watcher_;
  WatchCache& cache_;
  const Clock& clock_;
  WatchStreamOptions options_;
  size_t sent_ = 0;
  bool initial_end_sent_ = false;
  bool columns_sent_ = false;  // table watches: only the first event carries the columns
  Clock::TimePoint next_bookmark_;
  bool finished_ = false;
};

}  // namespace k3c::apiserver

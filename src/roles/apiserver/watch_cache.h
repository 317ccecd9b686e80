// The watch cache: every object under /registry/ held in memory as its serialized JSON
// bytes (shared and immutable, resourceVersion already set) plus the few fields lists and
// watches filter on, kept current by one store watch. GET, LIST and WATCH are served from
// here by writing the stored bytes out (DESIGN.md decision 1); a ring of recent events lets
// watches resume from a resourceVersion.
//
// Objects under an uncached prefix (Events, as upstream's DefaultWatchCacheSizes leaves them
// out of its cache: many, large, rarely read) are not held: get and list read them from the
// store (at the cache's revision, so a list is as consistent as a cached one), while their
// changes still pass through the cache's watches and history. A list or watch whose prefix
// is wider than an uncached prefix (none of the API's is) does not see those objects.
//
// What the cache holds (current objects and the history's) is packed: each object's JSON
// compressed against a dictionary of others of its resource (core/packed_text.h), which
// takes a 4.8 kB pod to ~340 bytes. Readers unpack as they write the bytes out.
//
// Thread-safety: every public method from any thread. mu_ guards objects_, history_,
// watchers_ and revision_; the applier thread is the only writer. packers_ belongs to the
// applier (and to start(), before the applier runs).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/packed_text.h"
#include "core/selector.h"
#include "core/status.h"
#include "store/store.h"

namespace k3c::apiserver {

// The selectable fields of a cached object besides metadata.name and metadata.namespace
// (those are the object's name and namespace_), only those whose value is not empty: a field
// selector reads a field that is not there as "". Each name views a string that lives as long
// as the process (the kinds' field tables, object_codec.cpp). A vector rather than a Labels
// map: an Event has 21 selectable fields, and a map node with its heap-allocated name took
// ~150 bytes a field, three times the Event's JSON between them (doc/benchmarks.md).
using SelectableFields = std::vector<std::pair<std::string_view, std::string>>;

struct CachedObject {
  std::string key;       // the store key
  // The object, serialized, with metadata.resourceVersion set: packed once the cache holds
  // it (core/packed_text.h), as it is in a decoder's answer.
  PackedText json;
  int64_t revision = 0;  // its mod revision (for a deleted object: the delete's revision)
  std::string namespace_;
  std::string name;
  std::string uid;
  Labels labels;
  SelectableFields fields;  // spec.nodeName, status.phase, ... (not metadata.name/namespace)

  // The value of a selectable field (metadata.name and metadata.namespace included), nullptr
  // when it is empty or not selectable.
  const std::string* field(std::string_view path) const;
};
using ObjectPtr = std::shared_ptr<const CachedObject>;

enum class EventType { kAdded, kModified, kDeleted };

struct WatchEvent {
  EventType type;
  ObjectPtr object;
  // The event as one line of upstream's JSON watch stream, serialized once and shared by
  // every watcher it goes to; null for events a watch makes for itself (initial ADDEDs).
  std::shared_ptr<const std::string> line = nullptr;
};

const char* event_type_name(EventType type);
// {"type":"<type>","object":<object_json>}\n
std::string watch_event_line(std::string_view type, std::string_view object_json);
std::string watch_event_line(std::string_view type, const PackedText& object_json);

// Turns a stored key-value into a CachedObject (parse, set resourceVersion, extract fields).
// Supplied by the apiserver, which knows which resource a key belongs to.
using Decoder = std::function<Result<CachedObject>(const store::KeyValue&)>;

// What a list or watch wants: keys under `prefix` matching both selectors.
struct Filter {
  std::string prefix;
  LabelSelector labels;
  FieldSelector fields;
  bool matches(const CachedObject& o) const;
};

struct ListSnapshot {
  std::vector<ObjectPtr> items;
  int64_t revision = 0;
  std::string next_key;   // non-empty when `limit` cut the list: continue after this key
  int64_t remaining = 0;  // matching items after the page (when cut); -1: not counted
};

// One watch on the cache. poll() hands over what has arrived; `ended` is set once the
// watch is over (cancelled, too slow, the cache restarted).
class CacheWatcher {
 public:
  struct Batch {
    std::vector<WatchEvent> events;
    Status ended;  // ok while the watch goes on
  };
  virtual ~CacheWatcher() = default;
  virtual void set_wake(std::function<void()> wake) = 0;
  virtual Batch poll() = 0;
  virtual void cancel() = 0;
  // How many synthetic ADDED events the watch began with (a watch from revision 0).
  virtual size_t initial_events() const = 0;
};

struct WatchCacheOptions {
  size_t history_events = 2000;  // ring of recent events for resuming watches
  size_t watcher_queue = 5000;   // events one watcher may have waiting before it is ended
  std::chrono::milliseconds catch_up_timeout{3000};  // waiting for a revision to arrive
  // Key prefixes ("/registry/events/") whose objects are read from the store, not held.
  std::vector<std::string> uncached_prefixes;
};

class WatchCache {
 public:
  WatchCache(store::Store& store, Decoder decoder, WatchCacheOptions options = {});
  ~WatchCache();

  // Loads everything under /registry/ and starts following the store.
  Status start();
  void stop();

  int64_t revision() const;
  // Waits until the cache has applied `revision` (0 = the store's current revision, so a
  // read after an acknowledged write sees it; negative = no wait). kTimeout when it does not
  // arrive in time.
  Status wait_for(int64_t revision);
  // Whether wait_for(revision) would return at once.
  bool has(int64_t revision) const;

  Result<ObjectPtr> get(const std::string& key, int64_t min_revision);
  // What the cache holds for `key` now; when it holds nothing, the answer once it has caught
  // up with the store (an object written a moment ago), as upstream's admission plugins fall
  // back from their informers to a live lookup before they refuse.
  Result<ObjectPtr> get_or_catch_up(const std::string& key);
  // Items under filter.prefix in key order after `after`, at most `limit` (0 = all).
  Result<ListSnapshot> list(const Filter& filter, int64_t min_revision, const std::string& after,
                            int64_t limit);
  // Watch from `from_revision` (> 0: events after it; kGone when it is older than the
  // history kept), or with synthetic ADDED events for every current match first
  // (from_revision == 0).
  Result<std::unique_ptr<CacheWatcher>> watch(const Filter& filter, int64_t from_revision);
  // A list read from the store at `revision` (which may be older than the cache's, as for a
  // continue token; kCompacted when the store no longer has it). Items are decoded and
  // filtered here; `remaining` is not counted (-1).
  Result<ListSnapshot> list_at(const Filter& filter, int64_t revision, const std::string& after,
                               int64_t limit);

 private:
  class Watch;
  bool uncached(std::string_view key) const;
  Result<ObjectPtr> decoded(const store::KeyValue& kv) const;
  // Decoded and packed: an object the cache keeps (the applier's).
  Result<ObjectPtr> kept(const store::KeyValue& kv);
  Result<std::unique_ptr<CacheWatcher>> watch_uncached(const Filter& filter);
  void run();
  Status load();
  void apply(const std::vector<store::Event>& events);
  void deliver(const WatchEvent& event, const ObjectPtr& previous);

  store::Store& store_;
  Decoder decode_;
  const WatchCacheOptions options_;
  std::unique_ptr<store::Watcher> store_watch_;
  std::map<std::string, TextPacker, std::less<>> packers_;  // by resource ("/registry/pods/")

  mutable std::mutex mu_;
  std::condition_variable advanced_;  // revision_ moved
  int64_t revision_ = 0;
  std::map<std::string, ObjectPtr, std::less<>> objects_;
  std::deque<std::pair<WatchEvent, ObjectPtr>> history_;  // event and the object before it
  int64_t history_floor_ = 0;  // watches from below this revision get kGone
  std::vector<std::shared_ptr<Watch>> watchers_;
  bool stopping_ = false;
  std::thread applier_;
};

}  // namespace k3c::apiserver

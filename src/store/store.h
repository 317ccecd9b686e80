// The datastore interface: a kine-style revisioned key-value store that the API server uses
// as its etcd. Every write gets the next global revision; reads can be served at a past
// revision until it is compacted; watches deliver every change after a revision, in order.
//
// Thread-safety: every method of Store and Watcher may be called from any thread.
// Ownership: open() returns the only owner of a Store; Watchers hold no reference to the
// Store's internals beyond their own queue, and a Watcher outliving its Store ends with a
// kServiceUnavailable status.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace k3c::store {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;  // revision of the write that created this incarnation
  int64_t mod_revision = 0;     // revision of the last write to it
  int64_t lease = 0;            // TTL in seconds; 0 = never expires
};

struct Event {
  enum class Type : uint8_t { kCreate, kUpdate, kDelete };
  Type type = Type::kCreate;
  // For kCreate/kUpdate the new key-value; for kDelete the key with the deleted value and
  // mod_revision = the delete's revision.
  KeyValue kv;
  // The value before this event (for kUpdate and kDelete); nullopt for kCreate.
  std::optional<KeyValue> prev;
};

struct ListResult {
  std::vector<KeyValue> items;
  int64_t revision = 0;  // the revision the list was read at
  bool more = false;     // there are more keys after the last item (use it as `after`)
};

struct ListOptions {
  int64_t limit = 0;     // 0 = no limit
  std::string after;     // continue strictly after this key ("" = from the start)
  int64_t revision = 0;  // 0 = current
};

// Handle on one watch. Events arrive in revision order, each revision at most once.
class Watcher {
 public:
  virtual ~Watcher() = default;
  // Waits up to `timeout` for events and returns what is there (possibly empty). Returns a
  // non-ok Status once the watch has ended: kCompacted when it fell too far behind or
  // started below the compacted revision, kServiceUnavailable when the store closed,
  // kGone after cancel().
  virtual Result<std::vector<Event>> next(std::chrono::milliseconds timeout) = 0;
  // Ends the watch; a blocked next() returns.
  virtual void cancel() = 0;
};

enum class SyncMode : uint8_t {
  kFull,    // default: every acknowledged write is on disk (fsync per group commit)
  kNormal,  // kine's trade-off: a power loss may lose the last writes; never corrupts
};

struct Options {
  std::string path;  // the SQLite file, e.g. <data-dir>/server/db/state.db
  SyncMode sync = SyncMode::kFull;
  // History kept by automatic compaction: at least this many revisions and at least this
  // much time, whichever keeps more. 0 revisions and 0 s keep only the live data. The
  // store's history only has to cover resuming the apiserver's own watch (clients resume
  // from the watch cache's history), so it is kept short: kine keeps 1,000 revisions and
  // compacts every 5 minutes, which is where k3s's growing state.db comes from.
  int64_t retain_revisions = 100;
  std::chrono::seconds retain_time{5};
  // How often the compactor and the lease expirer look; 0 disables the background thread
  // (tests then call compact() and expire_leases() themselves).
  std::chrono::milliseconds maintenance_interval{1000};
  // Most events a watcher may have waiting before it is ended with kCompacted.
  size_t watch_queue_limit = 10000;
  // Most writes one group commit takes into a transaction.
  size_t max_batch = 256;
  const Clock* clock = nullptr;  // nullptr = the system clock
};

class Store {
 public:
  virtual ~Store() = default;

  // The key at `revision` (0 = current). kNotFound if absent or deleted then.
  virtual Result<KeyValue> get(const std::string& key, int64_t revision = 0) = 0;
  // Keys starting with `prefix` in key order, with the revision read at.
  virtual Result<ListResult> list(const std::string& prefix, const ListOptions& options) = 0;
  // Number of live keys starting with `prefix`.
  virtual Result<int64_t> count(const std::string& prefix) = 0;

  // Creates `key`; kAlreadyExists if it is live. Returns the new key-value.
  virtual Result<KeyValue> create(const std::string& key, std::string value, int64_t lease = 0) = 0;
  // Replaces `key` if its mod revision is `expected_revision`; kConflict (with the current
  // revision) otherwise, kNotFound if it is absent.
  virtual Result<KeyValue> update(const std::string& key, std::string value,
                                  int64_t expected_revision, int64_t lease = 0) = 0;
  // Deletes `key` if its mod revision is `expected_revision` (0 = any). Returns the value
  // deleted, with mod_revision = the delete's revision.
  virtual Result<KeyValue> remove(const std::string& key, int64_t expected_revision = 0) = 0;

  // Every change to keys starting with `prefix` after revision `after` (0 = from now).
  virtual Result<std::unique_ptr<Watcher>> watch(const std::string& prefix, int64_t after) = 0;

  // Removes history at and below `revision` (keeping what is live at it). Reads and watches
  // below the compacted revision then fail with kCompacted.
  virtual Status compact(int64_t revision) = 0;
  // Runs one pass of the automatic compaction policy (Options::retain_*); returns the new
  // compacted revision.
  virtual Result<int64_t> compact_by_policy() = 0;
  // Deletes keys whose lease has run out; returns how many.
  virtual Result<int64_t> expire_leases() = 0;

  virtual int64_t current_revision() const = 0;
  virtual int64_t compacted_revision() const = 0;

  // Stops the background threads, ends every watch, closes the database. Idempotent;
  // the destructor calls it.
  virtual void close() = 0;
};

// Opens (creating if needed) the store at options.path. Fails with a clear Status when the
// file is not a k3c datastore, is corrupt, or its directory cannot be written.
Result<std::unique_ptr<Store>> open(const Options& options);

}  // namespace k3c::store

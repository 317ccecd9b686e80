// The log table in SQL: the schema (kine's shape) and every query the store runs, prepared
// once per connection. This is the SQLite dialect; src/store/README.md documents the schema
// and the meaning of each column.
//
// Not thread-safe: a LogTable belongs to one connection, used by one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/internal/sqlite.h"
#include "store/store.h"

namespace k3c::store::internal {

// One row of the log.
struct Row {
  int64_t id = 0;               // the revision of this write
  std::string name;             // the key
  bool created = false;         // this row created the key
  bool deleted = false;         // this row is a delete tombstone
  int64_t create_revision = 0;  // revision that created this incarnation
  int64_t prev_revision = 0;    // id of the row this one supersedes (0 = none)
  int64_t lease = 0;
  std::string value;  // empty for tombstones
};

// [begin, end) of the keys that start with `prefix`; end "" = unbounded.
struct KeyRange {
  std::string begin;
  std::string end;
};
KeyRange prefix_range(const std::string& prefix);

// What watch history needs per event: the row and the value it superseded.
struct HistoryRow {
  Row row;
  std::optional<Row> prev;  // the superseded row, for updates and deletes
};

inline KeyValue to_kv(const Row& row) {
  return KeyValue{row.name, row.value, row.create_revision, row.id, row.lease};
}
// The watch event a row of history stands for.
Event to_event(const HistoryRow& h);

class LogTable {
 public:
  // Creates the schema on an empty database, or checks that an existing one is ours.
  static Status init_schema(Db& db);
  static Result<LogTable> prepare(Db& db);

  // The newest row for `name` at or below `revision` (0 = newest), tombstones included.
  Result<std::optional<Row>> latest(const std::string& name, int64_t revision);
  // Live keys in `range` after `after`, as of `revision`, in key order; at most `limit`
  // rows (0 = all). `revision` must be > 0.
  Result<std::vector<Row>> live_range(const KeyRange& range, const std::string& after,
                                      int64_t revision, int64_t limit);
  Result<int64_t> count_live(const KeyRange& range, int64_t revision);
  // Rows with after < id <= upto whose key is in `range`, in id order, with what they
  // superseded; at most `limit` rows.
  Result<std::vector<HistoryRow>> history(const KeyRange& range, int64_t after, int64_t upto,
                                          int64_t limit);
  // Every live row with a lease, for re-arming lease timers at start.
  Result<std::vector<Row>> leased_rows();

  // Appends a row; returns its id (the new revision).
  Result<int64_t> append(const Row& row);

  // The highest revision ever assigned (deleted rows included).
  Result<int64_t> current_revision();
  // Integer values in the k3c_meta table: kCompactRevision (reads and watches below it fail
  // with kCompacted) and kCompactSwept (dead rows at or below it are already deleted).
  static constexpr const char* kCompactRevision = "compact_revision";
  static constexpr const char* kCompactSwept = "compact_swept";
  Result<int64_t> meta_int(const char* key);
  Status set_meta_int(const char* key, int64_t value);
  // Compaction sweep over the rows with from < id <= to (all at or below the compacted
  // revision): deletes every row one of them superseded, and the tombstones among them.
  // Returns how many rows were deleted.
  Result<int64_t> delete_dead_rows(int64_t from, int64_t to);

 private:
  explicit LogTable(Db& db) : db_(&db) {}
  Status prepare_all();

  Db* db_;
  std::optional<Stmt> latest_;
  std::optional<Stmt> live_range_;
  std::optional<Stmt> count_live_;
  std::optional<Stmt> history_;
  std::optional<Stmt> leased_;
  std::optional<Stmt> append_;
  std::optional<Stmt> current_;
  std::optional<Stmt> meta_get_;
  std::optional<Stmt> meta_set_;
  std::optional<Stmt> delete_superseded_;
  std::optional<Stmt> delete_tombstones_;
};

}  // namespace k3c::store::internal

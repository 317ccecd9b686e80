// The SQLite dialect of the log: schema, ownership check and the prepared queries.
#include "store/internal/log_table.h"

#include <charconv>
#include <limits>

namespace k3c::store::internal {
namespace {

constexpr const char* kMagic = "k3c-datastore";
constexpr const char* kSchemaVersion = "1";
// Upper bound of an unbounded key range. Keys are UTF-8 text (checked by the store), and
// the byte 0xFF never occurs in UTF-8, so every key sorts below it.
constexpr const char* kEndOfKeys = "\xff";
constexpr int64_t kNoLimit = -1;  // SQLite's LIMIT -1

// Autoincrement ids are the revisions: sqlite_sequence keeps the highest ever assigned, so a
// compacted-away newest row never lets a revision be handed out twice.
constexpr const char* kSchema = R"sql(
CREATE TABLE kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  lease INTEGER NOT NULL,
  value BLOB,
  old_value BLOB
);
CREATE INDEX kine_name_id_index ON kine (name, id);
CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision);
CREATE TABLE k3c_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
)sql";

constexpr const char* kRowColumns =
    "kv.id, kv.name, kv.created, kv.deleted, kv.create_revision, kv.prev_revision, "
    "kv.lease, kv.value";
constexpr int kRowColumnCount = 8;

// A row's columns start at `col`: id, name, created, deleted, create_revision,
// prev_revision, lease, value.
Row read_row(const Stmt& s, int col) {
  Row r;
  r.id = s.int_at(col);
  r.name = s.text_at(col + 1);
  r.created = s.int_at(col + 2) != 0;
  r.deleted = s.int_at(col + 3) != 0;
  // A creating row's create revision is its own id (kine stores 0 there).
  r.create_revision = r.created ? r.id : s.int_at(col + 4);
  r.prev_revision = s.int_at(col + 5);
  r.lease = s.int_at(col + 6);
  r.value = s.blob_at(col + 7);
  return r;
}

std::string end_or_max(const KeyRange& range) { return range.end.empty() ? kEndOfKeys : range.end; }

// Steps `s` to the end, handing each row to `read`, and resets it (also on error).
template <typename RowReader>
Status for_each_row(Stmt& s, RowReader&& read) {
  while (true) {
    auto more = s.step();
    if (!more.is_ok()) {
      s.reset();
      return more.status();
    }
    if (!*more) break;
    read(s);
  }
  s.reset();
  return Status::ok();
}

}  // namespace

KeyRange prefix_range(const std::string& prefix) {
  KeyRange range{prefix, ""};
  std::string end = prefix;
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      range.end = end;
      break;
    }
    end.pop_back();
  }
  return range;
}

Status LogTable::init_schema(Db& db) {
  // The first read of the file: this is where "file is not a database" shows.
  ASSIGN_OR_RETURN(Stmt tables, db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'"));
  bool has_tables = false, has_meta = false, has_kine = false;
  while (true) {
    ASSIGN_OR_RETURN(bool row, tables.step());
    if (!row) break;
    has_tables = true;
    std::string name = tables.text_at(0);
    has_meta = has_meta || name == "k3c_meta";
    has_kine = has_kine || name == "kine";
  }
  tables.reset();
  if (!has_tables) {
    // Incremental auto-vacuum lets maintenance hand free pages back to the file system after
    // a burst; it must be chosen before the first table exists.
    RETURN_IF_ERROR(db.exec("PRAGMA auto_vacuum = INCREMENTAL"));
    ASSIGN_OR_RETURN(auto tx, Transaction::begin(db));
    RETURN_IF_ERROR(db.exec(kSchema));
    RETURN_IF_ERROR(db.exec(std::string("INSERT INTO k3c_meta VALUES ('magic', '") + kMagic +
                            "'), ('schema_version', '" + kSchemaVersion +
                            "'), ('compact_revision', '0'), ('compact_swept', '0')"));
    return tx.commit();
  }
  if (!has_meta || !has_kine) {
    return error(Code::kCorrupt, db.path() +
                                     " is not a k3c datastore: it is an SQLite "
                                     "database without the k3c tables");
  }
  ASSIGN_OR_RETURN(Stmt meta, db.prepare("SELECT key, value FROM k3c_meta WHERE key IN "
                                         "('magic', 'schema_version')"));
  std::string magic, version;
  while (true) {
    ASSIGN_OR_RETURN(bool row, meta.step());
    if (!row) break;
    (meta.text_at(0) == "magic" ? magic : version) = meta.text_at(1);
  }
  if (magic != kMagic) {
    return error(Code::kCorrupt, db.path() + " is not a k3c datastore (bad magic '" + magic + "')");
  }
  if (version != kSchemaVersion) {
    return error(Code::kCorrupt, db.path() + " has datastore schema version '" + version +
                                     "'; this k3c reads version " + kSchemaVersion);
  }
  return Status::ok();
}

Result<LogTable> LogTable::prepare(Db& db) {
  LogTable t(db);
  RETURN_IF_ERROR(t.prepare_all());
  return t;
}

Status LogTable::prepare_all() {
  const std::string cols = kRowColumns;
  // The newest row of a key at or below a revision.
  ASSIGN_OR_RETURN(latest_, db_->prepare("SELECT " + cols +
                                         " FROM kine AS kv WHERE kv.name = ?1 "
                                         "AND kv.id <= ?2 ORDER BY kv.id DESC LIMIT 1"));
  // A row is live at revision R when it is the newest of its key at or below R and is not a
  // tombstone. Walks the (name, id) index in key order, so LIMIT stops early.
  const std::string live_at =
      " kv.name >= ?1 AND kv.name < ?2 AND kv.id <= ?3 AND kv.deleted = 0 AND kv.id = "
      "(SELECT MAX(m.id) FROM kine AS m WHERE m.name = kv.name AND m.id <= ?3)";
  ASSIGN_OR_RETURN(live_range_, db_->prepare("SELECT " + cols + " FROM kine AS kv WHERE" + live_at +
                                             " AND kv.name > ?4 ORDER BY kv.name LIMIT ?5"));
  ASSIGN_OR_RETURN(count_live_, db_->prepare("SELECT COUNT(*) FROM kine AS kv WHERE" + live_at));
  // History walks the id range (the unary + keeps SQLite off the name index) and joins the
  // row each update or delete superseded, for the event's previous value.
  ASSIGN_OR_RETURN(history_,
                   db_->prepare("SELECT " + cols +
                                ", p.id, p.name, p.created, p.deleted, p.create_revision, "
                                "p.prev_revision, p.lease, p.value FROM kine AS kv "
                                "LEFT JOIN kine AS p ON kv.created = 0 AND p.id = kv.prev_revision "
                                "WHERE kv.id > ?3 AND kv.id <= ?4 AND +kv.name >= ?1 AND "
                                "+kv.name < ?2 ORDER BY kv.id LIMIT ?5"));
  ASSIGN_OR_RETURN(leased_, db_->prepare("SELECT " + cols +
                                         " FROM kine AS kv WHERE kv.lease > 0 "
                                         "AND kv.deleted = 0 AND kv.id = (SELECT MAX(m.id) FROM "
                                         "kine AS m WHERE m.name = kv.name)"));
  ASSIGN_OR_RETURN(append_, db_->prepare("INSERT INTO kine (name, created, deleted, "
                                         "create_revision, prev_revision, lease, value, old_value) "
                                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL)"));
  ASSIGN_OR_RETURN(current_, db_->prepare("SELECT COALESCE((SELECT seq FROM sqlite_sequence "
                                          "WHERE name = 'kine'), 0)"));
  ASSIGN_OR_RETURN(meta_get_, db_->prepare("SELECT value FROM k3c_meta WHERE key = ?1"));
  ASSIGN_OR_RETURN(meta_set_, db_->prepare("INSERT OR REPLACE INTO k3c_meta VALUES (?1, ?2)"));
  // A row is superseded by exactly one row (the unique (name, prev_revision) index), so the
  // rows that die when the compacted revision passes a row are the one it superseded and,
  // for a tombstone, itself. This needs no scan of older rows.
  ASSIGN_OR_RETURN(delete_superseded_,
                   db_->prepare("DELETE FROM kine WHERE id IN (SELECT prev_revision FROM kine "
                                "WHERE id > ?1 AND id <= ?2 AND prev_revision > 0)"));
  ASSIGN_OR_RETURN(delete_tombstones_,
                   db_->prepare("DELETE FROM kine WHERE id > ?1 AND id <= ?2 AND deleted = 1"));
  return Status::ok();
}

Result<std::optional<Row>> LogTable::latest(const std::string& name, int64_t revision) {
  Stmt& s = *latest_;
  s.bind(1, name).bind(2, revision > 0 ? revision : std::numeric_limits<int64_t>::max());
  auto row = s.step();
  if (!row.is_ok()) {
    s.reset();
    return row.status();
  }
  std::optional<Row> out;
  if (*row) out = read_row(s, 0);
  s.reset();
  return out;
}

Result<std::vector<Row>> LogTable::live_range(const KeyRange& range, const std::string& after,
                                              int64_t revision, int64_t limit) {
  Stmt& s = *live_range_;
  s.bind(1, range.begin).bind(2, end_or_max(range)).bind(3, revision).bind(4, after);
  s.bind(5, limit > 0 ? limit : kNoLimit);
  std::vector<Row> rows;
  RETURN_IF_ERROR(for_each_row(s, [&](const Stmt& row) { rows.push_back(read_row(row, 0)); }));
  return rows;
}

Result<int64_t> LogTable::count_live(const KeyRange& range, int64_t revision) {
  Stmt& s = *count_live_;
  s.bind(1, range.begin).bind(2, end_or_max(range)).bind(3, revision);
  auto row = s.step();
  int64_t n = row.is_ok() && *row ? s.int_at(0) : 0;
  s.reset();
  if (!row.is_ok()) return row.status();
  return n;
}

Result<std::vector<HistoryRow>> LogTable::history(const KeyRange& range, int64_t after,
                                                  int64_t upto, int64_t limit) {
  Stmt& s = *history_;
  s.bind(1, range.begin).bind(2, end_or_max(range)).bind(3, after).bind(4, upto);
  s.bind(5, limit > 0 ? limit : kNoLimit);
  std::vector<HistoryRow> rows;
  RETURN_IF_ERROR(for_each_row(s, [&](const Stmt& row) {
    HistoryRow h{read_row(row, 0), std::nullopt};
    if (!row.is_null(kRowColumnCount)) h.prev = read_row(row, kRowColumnCount);
    rows.push_back(std::move(h));
  }));
  return rows;
}

Result<std::vector<Row>> LogTable::leased_rows() {
  Stmt& s = *leased_;
  std::vector<Row> rows;
  RETURN_IF_ERROR(for_each_row(s, [&](const Stmt& row) { rows.push_back(read_row(row, 0)); }));
  return rows;
}

Result<int64_t> LogTable::append(const Row& row) {
  Stmt& s = *append_;
  s.bind(1, row.name).bind(2, int64_t{row.created}).bind(3, int64_t{row.deleted});
  s.bind(4, row.created ? 0 : row.create_revision).bind(5, row.prev_revision).bind(6, row.lease);
  if (row.deleted) {
    s.bind_null(7);
  } else {
    s.bind_blob(7, row.value);
  }
  RETURN_IF_ERROR(s.run());
  return db_->last_insert_rowid();
}

Result<int64_t> LogTable::current_revision() {
  Stmt& s = *current_;
  auto row = s.step();
  int64_t rev = row.is_ok() && *row ? s.int_at(0) : 0;
  s.reset();
  if (!row.is_ok()) return row.status();
  return rev;
}

Result<int64_t> LogTable::meta_int(const char* key) {
  Stmt& s = *meta_get_;
  s.bind(1, std::string_view(key));
  auto row = s.step();
  std::string text = row.is_ok() && *row ? s.text_at(0) : "0";
  s.reset();
  if (!row.is_ok()) return row.status();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return error(Code::kCorrupt, db_->path() + ": bad value '" + text + "' for " + key);
  }
  return value;
}

Status LogTable::set_meta_int(const char* key, int64_t value) {
  return meta_set_->bind(1, std::string_view(key)).bind(2, std::to_string(value)).run();
}

Result<int64_t> LogTable::delete_dead_rows(int64_t from, int64_t to) {
  RETURN_IF_ERROR(delete_superseded_->bind(1, from).bind(2, to).run());
  int64_t n = sqlite3_changes(db_->handle());
  RETURN_IF_ERROR(delete_tombstones_->bind(1, from).bind(2, to).run());
  return n + sqlite3_changes(db_->handle());
}

Event to_event(const HistoryRow& h) {
  Event e;
  e.kv = to_kv(h.row);
  if (h.prev) e.prev = to_kv(*h.prev);
  if (h.row.created) {
    e.type = Event::Type::kCreate;
    e.prev.reset();
  } else if (h.row.deleted) {
    e.type = Event::Type::kDelete;
    if (h.prev) e.kv.value = h.prev->value;
  } else {
    e.type = Event::Type::kUpdate;
  }
  return e;
}

}  // namespace k3c::store::internal

// The SQLite-backed Store: opening, reads, writes and watches. Compaction, leases and the
// maintenance thread are in store_maintenance.cpp.
#include "store/internal/sqlite_store.h"
#include "core/thread_set.h"

#include <filesystem>
#include <limits>

namespace k3c::store {

Result<std::unique_ptr<Store>> open(const Options& options) {
  return internal::SqliteStore::open(options);
}

namespace internal {
namespace {

constexpr int kReaders = 4;

Status check_key(const std::string& key) {
  if (key.empty()) return error(Code::kInvalid, "key must not be empty");
  if (key.size() > kMaxKeyBytes) {
    return error(Code::kInvalid, "key is longer than " + std::to_string(kMaxKeyBytes) + " bytes");
  }
  // Keys are text; NUL and 0xFF (never part of UTF-8) are reserved for range bounds.
  for (char c : key) {
    if (c == '\0' || static_cast<unsigned char>(c) == 0xff) {
      return error(Code::kInvalid, "key contains a NUL or 0xFF byte");
    }
  }
  return Status::ok();
}

Status check_value(const std::string& value) {
  if (value.size() > kMaxValueBytes) {
    return error(Code::kRequestEntityTooLarge, "value of " + std::to_string(value.size()) +
                                                   " bytes is over the limit of " +
                                                   std::to_string(kMaxValueBytes));
  }
  return Status::ok();
}

// A revision to read at must lie within [compacted, current].
Status check_read_revision(int64_t revision, int64_t current, int64_t compacted) {
  if (revision > current) {
    return error(Code::kFutureRevision,
                 "revision " + std::to_string(revision) + " is newer than the current revision " +
                     std::to_string(current),
                 current);
  }
  if (revision > 0 && revision < compacted) {
    return error(Code::kCompacted, "revision " + std::to_string(revision) + " has been compacted",
                 compacted);
  }
  return Status::ok();
}

// Opens the writer connection and brings the file to a known state: WAL, the chosen
// synchronous level, our schema (or a clear refusal), and an integrity check.
Result<std::unique_ptr<Db>> open_writer(const Options& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto dir = fs::path(options.path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    return error(Code::kInternal, "cannot open datastore " + options.path + ": directory " +
                                      dir.string() + " does not exist");
  }
  auto db = Db::open(options.path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!db.is_ok()) {
    return error(db.status().code(), db.status().message() + " (is the directory writable?)");
  }
  Db& w = **db;
  if (sqlite3_db_readonly(w.handle(), "main") == 1) {
    return error(Code::kInternal, "datastore " + options.path + " is read-only");
  }
  RETURN_IF_ERROR(w.exec("PRAGMA busy_timeout = 5000"));
  RETURN_IF_ERROR(LogTable::init_schema(w));
  ASSIGN_OR_RETURN(Stmt wal, w.prepare("PRAGMA journal_mode = WAL"));
  ASSIGN_OR_RETURN(bool has_mode, wal.step());
  if (!has_mode || wal.text_at(0) != "wal") {
    return error(Code::kInternal, "datastore " + options.path + ": cannot switch to WAL mode");
  }
  wal.reset();
  RETURN_IF_ERROR(w.exec(options.sync == SyncMode::kFull ? "PRAGMA synchronous = FULL"
                                                         : "PRAGMA synchronous = NORMAL"));
  // Checkpoints run on their own thread (Checkpointer), not inside commits; the WAL file is
  // cut back to kWalKeepBytes whenever it restarts.
  RETURN_IF_ERROR(w.exec("PRAGMA journal_size_limit = " + std::to_string(kWalKeepBytes)));
  sqlite3_wal_autocheckpoint(w.handle(), 0);
  ASSIGN_OR_RETURN(Stmt check, w.prepare("PRAGMA quick_check"));
  ASSIGN_OR_RETURN(bool has_row, check.step());
  if (has_row && check.text_at(0) != "ok") {
    return error(Code::kCorrupt,
                 "datastore " + options.path + " failed its integrity check: " + check.text_at(0));
  }
  check.reset();
  return std::move(db).value();
}

}  // namespace

SqliteStore::SqliteStore(const Options& options)
    : options_(options),
      clock_(options.clock ? *options.clock : SystemClock::instance()),
      log_(log::for_role("store")),
      policy_(options.retain_revisions, options.retain_time) {}

SqliteStore::~SqliteStore() { close(); }

Result<std::unique_ptr<Store>> SqliteStore::open(const Options& options) {
  if (options.path.empty()) return error(Code::kInvalid, "datastore path is empty");
  auto writer = open_writer(options);
  Status started = writer.status();
  std::unique_ptr<SqliteStore> store;
  if (started.is_ok()) {
    store.reset(new SqliteStore(options));
    started = store->start(std::move(writer).value());
  }
  if (!started.is_ok()) {
    // Every open failure names the file, so the operator knows which one to look at.
    if (started.message().find(options.path) != std::string::npos) return started;
    return error(started.code(), "datastore " + options.path + ": " + started.message());
  }
  return std::unique_ptr<Store>(std::move(store));
}

Status SqliteStore::start(std::unique_ptr<Db> writer) {
  ASSIGN_OR_RETURN(LogTable table, LogTable::prepare(*writer));
  ASSIGN_OR_RETURN(int64_t current, table.current_revision());
  ASSIGN_OR_RETURN(int64_t compacted, table.meta_int(LogTable::kCompactRevision));
  current_ = current;
  compacted_ = compacted;
  ASSIGN_OR_RETURN(auto leased, table.leased_rows());
  for (const Row& r : leased) leases_.arm(r.name, r.id, r.lease, clock_.now());
  ASSIGN_OR_RETURN(readers_, ReadPool::open(options_.path, kReaders));
  ASSIGN_OR_RETURN(auto checkpoint_db, Db::open(options_.path, SQLITE_OPEN_READWRITE));
  // A read makes the connection open the database (and find it in WAL mode); until then a
  // checkpoint from it does nothing.
  RETURN_IF_ERROR(
      checkpoint_db->exec("PRAGMA busy_timeout = 5000; SELECT count(*) FROM sqlite_master"));
  checkpointer_ = std::make_unique<Checkpointer>(std::move(checkpoint_db), kWalCheckpointFrames,
                                                 kWalHardLimitFrames);
  sqlite3_wal_hook(writer->handle(), &Checkpointer::wal_hook, checkpointer_.get());
  hub_ = std::make_unique<WatchHub>(current, options_.watch_queue_limit,
                                    [this](const std::string& prefix, int64_t after, int64_t upto) {
                                      return read_history(prefix, after, upto);
                                    });
  committer_ = std::make_unique<Committer>(std::move(writer), std::move(table), options_.max_batch,
                                           [this](const auto& events) { on_commit(events); });
  if (options_.maintenance_interval.count() > 0) {
    maintenance_ = std::thread([this] {
      name_this_thread("store-maintain");
      maintenance_loop();
    });
  }
  return Status::ok();
}

void SqliteStore::close() {
  {
    std::lock_guard lock(stop_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (maintenance_.joinable()) maintenance_.join();
  if (committer_) committer_->stop();
  if (checkpointer_) checkpointer_->stop();
  if (hub_) hub_->close(error(Code::kServiceUnavailable, "datastore is closed"));
}

Result<KeyValue> SqliteStore::get(const std::string& key, int64_t revision) {
  RETURN_IF_ERROR(check_key(key));
  auto conn = readers_->acquire();
  auto read = [&]() -> Result<std::optional<Row>> {
    if (revision > 0) {
      ASSIGN_OR_RETURN(int64_t current, conn.table().current_revision());
      ASSIGN_OR_RETURN(int64_t compacted, conn.table().meta_int(LogTable::kCompactRevision));
      RETURN_IF_ERROR(check_read_revision(revision, current, compacted));
    }
    return conn.table().latest(key, revision);
  };
  // At the current revision a single statement is already a consistent snapshot.
  ASSIGN_OR_RETURN(auto row, revision > 0 ? in_read_snapshot(conn, read) : read());
  if (!row || row->deleted) return error(Code::kNotFound, "key " + key + " not found");
  return to_kv(*row);
}

Result<ListResult> SqliteStore::list(const std::string& prefix, const ListOptions& options) {
  if (options.limit < 0) return error(Code::kInvalid, "limit must not be negative");
  auto conn = readers_->acquire();
  return in_read_snapshot(conn, [&]() -> Result<ListResult> {
    ListResult out;
    ASSIGN_OR_RETURN(int64_t current, conn.table().current_revision());
    ASSIGN_OR_RETURN(int64_t compacted, conn.table().meta_int(LogTable::kCompactRevision));
    RETURN_IF_ERROR(check_read_revision(options.revision, current, compacted));
    out.revision = options.revision > 0 ? options.revision : current;
    int64_t fetch = options.limit > 0 ? options.limit + 1 : 0;
    ASSIGN_OR_RETURN(auto rows, conn.table().live_range(prefix_range(prefix), options.after,
                                                        out.revision, fetch));
    if (options.limit > 0 && static_cast<int64_t>(rows.size()) > options.limit) {
      out.more = true;
      rows.pop_back();
    }
    out.items.reserve(rows.size());
    for (Row& r : rows) {
      out.items.push_back(
          KeyValue{std::move(r.name), std::move(r.value), r.create_revision, r.id, r.lease});
    }
    return out;
  });
}

Result<int64_t> SqliteStore::count(const std::string& prefix) {
  auto conn = readers_->acquire();
  return conn.table().count_live(prefix_range(prefix), std::numeric_limits<int64_t>::max());
}

Result<KeyValue> SqliteStore::write(WriteRequest request) {
  RETURN_IF_ERROR(check_key(request.key));
  RETURN_IF_ERROR(check_value(request.value));
  if (request.lease < 0) return error(Code::kInvalid, "lease must not be negative");
  if (request.expected_revision < 0) {
    return error(Code::kInvalid, "expected revision must not be negative");
  }
  return committer_->write(std::move(request));
}

Result<KeyValue> SqliteStore::create(const std::string& key, std::string value, int64_t lease) {
  return write({WriteRequest::Kind::kCreate, key, std::move(value), 0, lease});
}

Result<KeyValue> SqliteStore::update(const std::string& key, std::string value,
                                     int64_t expected_revision, int64_t lease) {
  return write({WriteRequest::Kind::kUpdate, key, std::move(value), expected_revision, lease});
}

Result<KeyValue> SqliteStore::remove(const std::string& key, int64_t expected_revision) {
  return write({WriteRequest::Kind::kDelete, key, "", expected_revision, 0});
}

void SqliteStore::on_commit(const std::vector<EventPtr>& events) {
  current_ = events.back()->kv.mod_revision;
  for (const auto& e : events) {
    if (e->type != Event::Type::kDelete && e->kv.lease > 0) {
      leases_.arm(e->kv.key, e->kv.mod_revision, e->kv.lease, clock_.now());
    } else if (e->type != Event::Type::kCreate) {
      leases_.disarm(e->kv.key);
    }
  }
  hub_->publish(events);
}

Result<std::unique_ptr<Watcher>> SqliteStore::watch(const std::string& prefix, int64_t after) {
  if (after < 0) return error(Code::kInvalid, "watch revision must not be negative");
  return hub_->register_watcher(prefix, after, compacted_.load());
}

Result<std::vector<EventPtr>> SqliteStore::read_history(const std::string& prefix, int64_t after,
                                                        int64_t upto) {
  auto conn = readers_->acquire();
  const auto limit = static_cast<int64_t>(options_.watch_queue_limit);
  return in_read_snapshot(conn, [&]() -> Result<std::vector<EventPtr>> {
    // Checked again inside the snapshot: a compaction may have finished since the hub's
    // quick check.
    ASSIGN_OR_RETURN(int64_t compacted, conn.table().meta_int(LogTable::kCompactRevision));
    if (after < compacted) {
      return error(Code::kCompacted,
                   "required revision " + std::to_string(after) + " has been compacted", compacted);
    }
    ASSIGN_OR_RETURN(auto rows, conn.table().history(prefix_range(prefix), after, upto, limit + 1));
    if (static_cast<int64_t>(rows.size()) > limit) {
      return error(Code::kCompacted, "more than " + std::to_string(limit) +
                                         " events to replay; start from a newer revision");
    }
    std::vector<EventPtr> events;
    events.reserve(rows.size());
    for (const auto& h : rows) events.push_back(std::make_shared<Event>(to_event(h)));
    return events;
  });
}

}  // namespace internal
}  // namespace k3c::store

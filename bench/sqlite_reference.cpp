// Phase 1, the reference: what SQLite alone does on this disk. One thread commits one
// INSERT per transaction into the store's own log table: the store creates the file (schema,
// indexes, auto-vacuum, WAL) and is closed, then plain SQLite writes to it with the store's
// pragmas. synchronous = FULL is the reference the store's durable write rate is compared with: one
// fsync per transaction.
#include <sqlite3.h>

#include <memory>

#include "phases.h"
#include "store/store.h"

namespace k3c::bench {
namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using DbPtr = std::unique_ptr<sqlite3, CloseDb>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

Status sqlite_failure(sqlite3* db, const std::string& what) {
  return error(Code::kInternal, "reference " + what + ": " + sqlite3_errmsg(db));
}

Status exec(sqlite3* db, const std::string& sql) {
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return sqlite_failure(db, sql);
  }
  return Status::ok();
}

Status run(sqlite3* db, sqlite3_stmt* stmt) {
  int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  return rc == SQLITE_DONE ? Status::ok() : sqlite_failure(db, "step");
}

Result<StmtPtr> prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) return sqlite_failure(db, sql);
  return StmtPtr(raw);
}

// The store runs in WAL mode; so must its reference.
Status check_wal(sqlite3* db) {
  ASSIGN_OR_RETURN(StmtPtr mode, prepare(db, "PRAGMA journal_mode"));
  bool wal =
      sqlite3_step(mode.get()) == SQLITE_ROW &&
      std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(mode.get(), 0))) == "wal";
  return wal ? Status::ok() : error(Code::kInternal, "reference database is not in WAL mode");
}

}  // namespace

// Rows committed per second, one per transaction, for `duration`.
Result<double> raw_sqlite_insert_rate(const BenchEnv& env, const char* synchronous,
                                      std::chrono::nanoseconds duration) {
  ScratchDir dir(env, "reference");
  {
    store::Options options;
    options.path = dir.db_path();
    ASSIGN_OR_RETURN(auto created, store::open(options));
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(dir.db_path().c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) return sqlite_failure(raw, "open");
  RETURN_IF_ERROR(exec(db.get(), std::string("PRAGMA journal_size_limit = 8388608; "
                                             "PRAGMA synchronous = ") +
                                     synchronous));
  RETURN_IF_ERROR(check_wal(db.get()));
  ASSIGN_OR_RETURN(StmtPtr begin, prepare(db.get(), "BEGIN IMMEDIATE"));
  ASSIGN_OR_RETURN(StmtPtr commit, prepare(db.get(), "COMMIT"));
  ASSIGN_OR_RETURN(StmtPtr insert,
                   prepare(db.get(),
                           "INSERT INTO kine (name, created, deleted, create_revision, "
                           "prev_revision, lease, value, old_value) "
                           "VALUES (?1, 1, 0, 0, 0, 0, ?2, NULL)"));
  const std::string value = make_value(1024, 1);
  int64_t rows = 0;
  auto start = SteadyClock::now();
  auto deadline = start + duration;
  while (SteadyClock::now() < deadline) {
    std::string key = "/registry/reference/" + std::to_string(rows);
    RETURN_IF_ERROR(run(db.get(), begin.get()));
    sqlite3_bind_text(insert.get(), 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_blob(insert.get(), 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    RETURN_IF_ERROR(run(db.get(), insert.get()));
    RETURN_IF_ERROR(run(db.get(), commit.get()));
    ++rows;
  }
  return static_cast<double>(rows) /
         std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace k3c::bench

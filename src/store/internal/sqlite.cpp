// RAII over the SQLite C API (see sqlite.h).
#include "store/internal/sqlite.h"

namespace k3c::store::internal {

Status sqlite_error(sqlite3* db, int rc, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return error(Code::kStorageFull,
                   msg + " (the disk is full; writes resume when space returns)");
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return error(Code::kCorrupt, msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return error(Code::kServiceUnavailable, msg);
    default:
      return error(Code::kInternal, msg);
  }
}

Result<std::unique_ptr<Db>> Db::open(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status s = sqlite_error(raw, rc, "cannot open datastore " + path);
    sqlite3_close(raw);
    return s;
  }
  sqlite3_extended_result_codes(raw, 1);
  return std::unique_ptr<Db>(new Db(raw, path));
}

Db::~Db() { sqlite3_close_v2(db_); }

Status Db::exec(std::string_view sql) {
  std::string owned(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    sqlite3_free(err);
    return sqlite_error(db_, rc, owned);
  }
  return Status::ok();
}

Result<Stmt> Db::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return sqlite_error(db_, rc, "prepare");
  return Stmt(db_, stmt);
}

Stmt& Stmt::operator=(Stmt&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Stmt& Stmt::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::bind_blob(int index, std::string_view bytes) {
  // A zero-length blob must still be a blob, not NULL: pass a non-null pointer.
  static const char kEmpty = 0;
  sqlite3_bind_blob(stmt_, index, bytes.empty() ? &kEmpty : bytes.data(),
                    static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::bind_null(int index) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Result<bool> Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return sqlite_error(db_, rc, "query");
}

Status Stmt::run() {
  auto r = step();
  reset();
  return r.status();
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Stmt::text_at(int col) const {
  auto* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

std::string Stmt::blob_at(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(static_cast<const char*>(p), n) : std::string();
}

Result<Transaction> Transaction::begin(Db& db, std::string_view begin) {
  RETURN_IF_ERROR(db.exec(begin));
  return Transaction(&db);
}

Transaction::~Transaction() {
  if (db_) {
    // Rolling back a failed transaction; nothing useful to do if this fails too, the
    // connection discards the transaction on its next BEGIN anyway.
    (void)db_->exec("ROLLBACK");
  }
}

Status Transaction::commit() {
  Status s = db_->exec("COMMIT");
  if (s.is_ok()) db_ = nullptr;
  return s;
}

}  // namespace k3c::store::internal

// A thin RAII layer over the SQLite C API: a connection, prepared statements, and the
// mapping of SQLite result codes onto Status codes. Not thread-safe: one thread uses a
// connection at a time (the store's connection pool and committer see to that).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::store::internal {

// Status for a failed SQLite call: SQLITE_FULL -> kStorageFull, SQLITE_CORRUPT and
// SQLITE_NOTADB -> kCorrupt, SQLITE_BUSY -> kServiceUnavailable, others -> kInternal.
Status sqlite_error(sqlite3* db, int rc, std::string_view what);

class Stmt;

// One SQLite connection. Owns the handle; closes it on destruction.
class Db {
 public:
  static Result<std::unique_ptr<Db>> open(const std::string& path, int flags);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs one or more statements that return no rows.
  Status exec(std::string_view sql);
  Result<Stmt> prepare(std::string_view sql);
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// A prepared statement. step() returns true while there is a row.
class Stmt {
 public:
  Stmt(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Stmt(Stmt&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Stmt& operator=(Stmt&& other) noexcept;
  ~Stmt();

  Stmt& bind(int index, int64_t value);
  Stmt& bind(int index, std::string_view text);  // TEXT
  Stmt& bind_blob(int index, std::string_view bytes);
  Stmt& bind_null(int index);

  // Advances: a row (true), done (false) or an error.
  Result<bool> step();
  // Runs a statement that returns no rows to completion.
  Status run();
  // Ready for new bindings and another run.
  void reset();

  int64_t int_at(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text_at(int col) const;
  std::string blob_at(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

// A transaction that rolls back unless commit() succeeded.
class Transaction {
 public:
  // `begin` is "BEGIN", "BEGIN IMMEDIATE" or "BEGIN DEFERRED".
  static Result<Transaction> begin(Db& db, std::string_view begin = "BEGIN IMMEDIATE");
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status commit();

 private:
  explicit Transaction(Db* db) : db_(db) {}
  Db* db_;
};

}  // namespace k3c::store::internal

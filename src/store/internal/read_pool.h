// A small pool of read-only connections to the database. WAL lets readers run beside the
// committer; each connection sees the last committed state when its read starts.
//
// open() opens one connection; more, up to `size`, open when every one is in use. The most
// recently returned connection is taken first, so a lightly used server keeps one or two
// open: each holds its own page cache and prepared statements (~70 kB after the schema read).
//
// Thread-safety: acquire() from any thread; a Lease is used by one thread and returns its
// connection on destruction. mu_ guards free_ and opened_.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/internal/log_table.h"
#include "store/internal/sqlite.h"

namespace k3c::store::internal {

class ReadPool {
 public:
  struct Conn {
    std::unique_ptr<Db> db;
    LogTable table;
  };

  class Lease {
   public:
    Lease(ReadPool* pool, std::unique_ptr<Conn> conn) : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (conn_) pool_->release(std::move(conn_));
    }
    Db& db() { return *conn_->db; }
    LogTable& table() { return conn_->table; }

   private:
    ReadPool* pool_;
    std::unique_ptr<Conn> conn_;
  };

  static Result<std::unique_ptr<ReadPool>> open(const std::string& path, int size);
  // Blocks until a connection is free.
  Lease acquire();

 private:
  static Result<std::unique_ptr<Conn>> open_connection(const std::string& path);
  void release(std::unique_ptr<Conn> conn);

  std::string path_;
  int size_ = 1;
  int opened_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Conn>> free_;
};

// Runs `body` inside one read transaction so that everything it reads is one snapshot.
template <typename F>
auto in_read_snapshot(ReadPool::Lease& conn, F&& body) -> decltype(body()) {
  auto tx = Transaction::begin(conn.db(), "BEGIN DEFERRED");
  if (!tx.is_ok()) return tx.status();
  auto result = body();
  // A read transaction has nothing to keep: a failed COMMIT is rolled back by the guard.
  (void)tx->commit();
  return result;
}

}  // namespace k3c::store::internal

// Read connections (see read_pool.h).
#include "store/internal/read_pool.h"

#include <algorithm>

#include "core/log.h"

namespace k3c::store::internal {

Result<std::unique_ptr<ReadPool::Conn>> ReadPool::open_connection(const std::string& path) {
  ASSIGN_OR_RETURN(auto db, Db::open(path, SQLITE_OPEN_READWRITE));
  RETURN_IF_ERROR(db->exec("PRAGMA query_only = ON; PRAGMA busy_timeout = 5000"));
  ASSIGN_OR_RETURN(LogTable table, LogTable::prepare(*db));
  return std::make_unique<Conn>(Conn{std::move(db), std::move(table)});
}

Result<std::unique_ptr<ReadPool>> ReadPool::open(const std::string& path, int size) {
  auto pool = std::make_unique<ReadPool>();
  pool->path_ = path;
  pool->size_ = std::max(1, size);
  ASSIGN_OR_RETURN(auto first, open_connection(path));  // a store that cannot be read fails here
  pool->free_.push_back(std::move(first));
  pool->opened_ = 1;
  return pool;
}

ReadPool::Lease ReadPool::acquire() {
  std::unique_lock lock(mu_);
  if (free_.empty() && opened_ < size_) {
    ++opened_;
    lock.unlock();
    auto conn = open_connection(path_);
    if (conn.is_ok()) return Lease(this, std::move(*conn));
    log::for_role("store")->warn("could not open another read connection: {}",
                                 conn.status().message());
    lock.lock();
    --opened_;  // wait for one of those open (the first always is)
  }
  cv_.wait(lock, [&] { return !free_.empty(); });
  auto conn = std::move(free_.back());
  free_.pop_back();
  return Lease(this, std::move(conn));
}

void ReadPool::release(std::unique_ptr<Conn> conn) {
  {
    std::lock_guard lock(mu_);
    free_.push_back(std::move(conn));
  }
  cv_.notify_one();
}

}  // namespace k3c::store::internal

// Read connections (see read_pool.h).
#include "store/internal/read_pool.h"

namespace k3c::store::internal {

Result<std::unique_ptr<ReadPool>> ReadPool::open(const std::string& path, int size) {
  auto pool = std::make_unique<ReadPool>();
  for (int i = 0; i < size; ++i) {
    ASSIGN_OR_RETURN(auto db, Db::open(path, SQLITE_OPEN_READWRITE));
    RETURN_IF_ERROR(db->exec("PRAGMA query_only = ON; PRAGMA busy_timeout = 5000"));
    ASSIGN_OR_RETURN(LogTable table, LogTable::prepare(*db));
    pool->free_.push_back(std::make_unique<Conn>(Conn{std::move(db), std::move(table)}));
  }
  return pool;
}

ReadPool::Lease ReadPool::acquire() {
  std::unique_lock lock(mu_);
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

// Group commit: the one thread that writes to the database. Writers hand in requests and
// block; the committer takes every request waiting (up to max_batch) into one transaction
// and one fsync, then answers each with its own result (its own Conflict, NotFound, ...).
// While one batch is being synced, the next one gathers, which is where the throughput
// comes from (compare LevelDB's DBImpl::Write).
//
// Compare-and-swap checks read the key's newest row inside the write transaction, so
// requests later in a batch see the effects of earlier ones. A failure of the database
// itself (disk full, I/O error) rolls the whole batch back and every request in it gets that
// error: nothing is acknowledged that is not on disk.
//
// Maintenance (compaction chunks, lease expiry, vacuum) runs as jobs on the same thread, each
// in its own short transaction, so writes wait at most one job.
//
// Thread-safety: write() and run_job() from any thread; stop() from the owner.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "store/internal/log_table.h"
#include "store/internal/sqlite.h"
#include "store/internal/watch_hub.h"
#include "store/store.h"

namespace k3c::store::internal {

struct WriteRequest {
  enum class Kind : uint8_t { kCreate, kUpdate, kDelete };
  Kind kind = Kind::kCreate;
  std::string key;
  std::string value;
  int64_t expected_revision = 0;  // update/delete: the mod revision the key must have
  int64_t lease = 0;
};

class Committer {
 public:
  // Runs on the committer thread after each transaction that committed, with the batch's
  // events in revision order (before any writer of the batch is answered).
  using OnCommit = std::function<void(const std::vector<EventPtr>&)>;
  // A maintenance job: runs alone on the committer thread and manages its own transaction.
  using Job = std::function<Status(Db&, LogTable&)>;

  Committer(std::unique_ptr<Db> db, LogTable table, size_t max_batch, OnCommit on_commit);
  ~Committer();

  // Blocks until the write is committed (and on disk) or has failed.
  Result<KeyValue> write(WriteRequest request);
  Status run_job(Job job);
  // Fails waiting and later requests with kServiceUnavailable and joins the thread.
  void stop();

 private:
  struct PendingWrite {
    WriteRequest request;
    std::promise<Result<KeyValue>> done;
  };
  struct PendingJob {
    Job job;
    std::promise<Status> done;
  };
  using Pending = std::variant<PendingWrite, PendingJob>;

  void loop();
  void commit_batch(std::vector<PendingWrite>& batch);
  Result<EventPtr> apply(const WriteRequest& request);

  std::unique_ptr<Db> db_;  // used by the committer thread only
  LogTable table_;          // likewise
  const size_t max_batch_;
  OnCommit on_commit_;

  std::mutex mu_;  // guards queue_ and stopping_
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace k3c::store::internal

// The Store over SQLite: a committer thread for writes (group commit), a pool of read
// connections, the watch hub, the lease timer and a maintenance thread that runs the
// compaction policy and expires leases. See src/store/README.md for the flow.
//
// Thread-safety: every public method from any thread. current_ and compacted_ are atomics
// written by the committer thread; compaction_mu_ serialises compactions; stop_mu_ guards
// stopping_ for the maintenance thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "core/log.h"
#include "store/internal/checkpointer.h"
#include "store/internal/committer.h"
#include "store/internal/compaction_policy.h"
#include "store/internal/lease_timer.h"
#include "store/internal/read_pool.h"
#include "store/internal/watch_hub.h"
#include "store/store.h"

namespace k3c::store::internal {

// Limits on what the store accepts.
inline constexpr size_t kMaxKeyBytes = 4096;
inline constexpr size_t kMaxValueBytes = 8 << 20;
// Ids swept per compaction transaction: small enough that a write waits only milliseconds.
inline constexpr int64_t kCompactionChunk = 1000;
// WAL size (4 KiB pages) at which the checkpointer copies it back, and past which it makes
// writers wait for a full checkpoint; the WAL file is cut back to kWalKeepBytes after.
inline constexpr int kWalCheckpointFrames = 256;
inline constexpr int kWalHardLimitFrames = 1024;
inline constexpr int64_t kWalKeepBytes = 1 << 20;

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<Store>> open(const Options& options);
  ~SqliteStore() override;

  Result<KeyValue> get(const std::string& key, int64_t revision) override;
  Result<ListResult> list(const std::string& prefix, const ListOptions& options) override;
  Result<int64_t> count(const std::string& prefix) override;
  Result<KeyValue> create(const std::string& key, std::string value, int64_t lease) override;
  Result<KeyValue> update(const std::string& key, std::string value, int64_t expected_revision,
                          int64_t lease) override;
  Result<KeyValue> remove(const std::string& key, int64_t expected_revision) override;
  Result<std::unique_ptr<Watcher>> watch(const std::string& prefix, int64_t after) override;
  Status compact(int64_t revision) override;
  Result<int64_t> compact_by_policy() override;
  Result<int64_t> expire_leases() override;
  int64_t current_revision() const override { return current_.load(); }
  int64_t compacted_revision() const override { return compacted_.load(); }
  void close() override;

 private:
  explicit SqliteStore(const Options& options);
  Status start(std::unique_ptr<Db> writer);
  Result<KeyValue> write(WriteRequest request);
  void on_commit(const std::vector<EventPtr>& events);
  Result<std::vector<EventPtr>> read_history(const std::string& prefix, int64_t after,
                                             int64_t upto);
  Status sweep(int64_t target);
  Status vacuum_if_sparse();
  void maintenance_loop();

  const Options options_;
  const Clock& clock_;
  std::shared_ptr<spdlog::logger> log_;
  std::atomic<int64_t> current_{0};
  std::atomic<int64_t> compacted_{0};
  LeaseTimer leases_;
  std::unique_ptr<ReadPool> readers_;
  std::unique_ptr<WatchHub> hub_;
  std::unique_ptr<Committer> committer_;
  std::unique_ptr<Checkpointer> checkpointer_;

  std::mutex compaction_mu_;  // one compaction at a time; guards policy_
  CompactionPolicy policy_;

  std::mutex stop_mu_;  // guards stopping_
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread maintenance_;
};

}  // namespace k3c::store::internal

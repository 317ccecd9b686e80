// Store maintenance: compaction (explicit and by policy), lease expiry, incremental vacuum,
// and the background thread that runs them.
#include "store/internal/sqlite_store.h"

namespace k3c::store::internal {

Status SqliteStore::compact(int64_t revision) {
  if (revision <= 0) return error(Code::kInvalid, "compact revision must be positive");
  std::lock_guard lock(compaction_mu_);
  if (revision > current_.load()) {
    return error(Code::kFutureRevision,
                 "cannot compact to " + std::to_string(revision) +
                     ": newer than the current revision " + std::to_string(current_.load()),
                 current_.load());
  }
  // First make the new floor visible (reads and watches below it now fail), then sweep the
  // dead rows away in small transactions.
  RETURN_IF_ERROR(committer_->run_job([&](Db& db, LogTable& table) -> Status {
    ASSIGN_OR_RETURN(auto tx, Transaction::begin(db));
    ASSIGN_OR_RETURN(int64_t compacted, table.meta_int(LogTable::kCompactRevision));
    if (revision < compacted) {
      return error(Code::kCompacted,
                   "revision " + std::to_string(revision) + " has already been compacted",
                   compacted);
    }
    RETURN_IF_ERROR(table.set_meta_int(LogTable::kCompactRevision, revision));
    RETURN_IF_ERROR(tx.commit());
    compacted_ = revision;
    return Status::ok();
  }));
  return sweep(revision);
}

Status SqliteStore::sweep(int64_t target) {
  bool done = false;
  while (!done) {
    RETURN_IF_ERROR(committer_->run_job([&](Db& db, LogTable& table) -> Status {
      ASSIGN_OR_RETURN(auto tx, Transaction::begin(db));
      ASSIGN_OR_RETURN(int64_t swept, table.meta_int(LogTable::kCompactSwept));
      if (swept >= target) {
        done = true;
        return Status::ok();
      }
      int64_t to = std::min(target, swept + kCompactionChunk);
      ASSIGN_OR_RETURN(int64_t deleted, table.delete_dead_rows(swept, to));
      (void)deleted;  // counted by the benchmark through the file size, not needed here
      RETURN_IF_ERROR(table.set_meta_int(LogTable::kCompactSwept, to));
      return tx.commit();
    }));
  }
  return vacuum_if_sparse();
}

Status SqliteStore::vacuum_if_sparse() {
  // Free pages are reused by later writes; give them back to the file system only when a
  // quarter of the file is free (after a burst), a bounded number per transaction.
  return committer_->run_job([](Db& db, LogTable&) -> Status {
    ASSIGN_OR_RETURN(Stmt pages,
                     db.prepare("SELECT * FROM pragma_page_count, pragma_freelist_count"));
    ASSIGN_OR_RETURN(bool row, pages.step());
    if (!row) return Status::ok();
    int64_t total = pages.int_at(0), free = pages.int_at(1);
    pages.reset();
    if (free < 256 || free * 4 < total) return Status::ok();
    return db.exec("PRAGMA incremental_vacuum(2048)");
  });
}

Result<int64_t> SqliteStore::compact_by_policy() {
  int64_t target;
  {
    std::lock_guard lock(compaction_mu_);
    target = policy_.target(current_.load(), clock_.now());
  }
  if (target <= compacted_.load()) return compacted_.load();
  RETURN_IF_ERROR(compact(target));
  return target;
}

Result<int64_t> SqliteStore::expire_leases() {
  int64_t removed = 0;
  for (const auto& due : leases_.take_expired(clock_.now())) {
    auto r = remove(due.key, due.revision);
    if (r.is_ok()) {
      ++removed;
      continue;
    }
    // Rewritten or deleted since the lease was armed: the newer write decides.
    Code c = r.status().code();
    if (c != Code::kNotFound && c != Code::kConflict) {
      // Put it back so a later pass retries (disk full, closing).
      leases_.arm(due.key, due.revision, 1, clock_.now());
      return r.status();
    }
  }
  return removed;
}

void SqliteStore::maintenance_loop() {
  std::string last_failure;
  while (true) {
    {
      std::unique_lock lock(stop_mu_);
      if (stop_cv_.wait_for(lock, options_.maintenance_interval, [&] { return stopping_; })) {
        return;
      }
    }
    // Failures (disk full, ...) are retried at the next tick; the writes themselves report
    // them to their callers. Log a failure once, not at every tick.
    Status leases = expire_leases().status();
    Status compaction = compact_by_policy().status();
    Status failure = !leases.is_ok() ? leases : compaction;
    if (!failure.is_ok() && failure.to_string() != last_failure) {
      log_->warn("maintenance: {}", failure.to_string());
    }
    last_failure = failure.is_ok() ? "" : failure.to_string();
  }
}

}  // namespace k3c::store::internal

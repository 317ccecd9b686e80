// The phases of the store benchmark. Each runs its own databases in scratch directories,
// prints its figures as it goes, and returns them for the summary. A phase that cannot
// run (the store does not open, a write fails) returns the Status that stopped it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_env.h"
#include "bench_report.h"
#include "core/status.h"

namespace k3c::bench {

// Phase 1, one repetition: rows per second that raw SQLite commits on one thread, one
// INSERT per transaction, into a file the store created, with synchronous = `synchronous`.
Result<double> raw_sqlite_insert_rate(const BenchEnv& env, const char* synchronous,
                                      std::chrono::nanoseconds duration);

// Phases 1 and 2: the reference, and durable (SyncMode::kFull) creates acknowledged per
// second by the store with 1, 16 and 64 writer threads.
struct WriteFigures {
  int writers = 0;
  Rate rate;
  Latency latency;
};
struct DurableWriteFigures {
  Rate raw_full;    // synchronous = FULL: the reference for durable writes
  Rate raw_normal;  // synchronous = NORMAL, for context
  std::vector<WriteFigures> store;
};
Result<DurableWriteFigures> run_durable_writes(const BenchEnv& env);

// Phases 3 and 4, on one store of 10,000 keys with 1 KiB values.
struct ReadFigures {
  Rate gets_1;               // gets per second, one reader thread
  Rate gets_4;               // gets per second, four reader threads
  double full_list_ms = 0;   // one list of all 10,000 keys
  double paged_list_ms = 0;  // all 10,000 keys in pages of 500, at one revision
  double page_ms = 0;        // one page of 500
};
Result<ReadFigures> run_store_reads(const BenchEnv& env);

// Phase 5: delivery latency to 100 watchers of one prefix.
struct WatchFigures {
  Latency from_call;  // from just before the write call to the watcher's next() returning
  Latency from_ack;   // from the write call returning to the watcher's next() returning
  // From the commit to the watcher's next() returning. The commit's moment is estimated per
  // event as the earliest of the write's acknowledgement and its first delivery (the store
  // publishes right after COMMIT, before it answers the writer): this is the fan-out's own
  // latency, without the fsync that from_call includes.
  Latency from_commit;
  Latency write;  // the create() calls themselves (durable: they include the fsync)
  double events_per_s = 0;
  int64_t missed = 0;  // (watcher, event) deliveries that never arrived, over all reps
};
Result<WatchFigures> run_watch_latency(const BenchEnv& env);

// Phase 6: 1,000 keys rewritten for simulated hours, compacting by policy every simulated
// second; file size against live data, and write stalls.
struct ChurnFigures {
  int64_t writes = 0;
  double simulated_hours = 0;
  int64_t live_bytes = 0;    // 1,000 x (key + value)
  int64_t final_bytes = 0;   // state.db + state.db-wal at the end
  int64_t max_bytes = 0;     // largest sample
  int64_t closed_bytes = 0;  // state.db after the store closed (WAL checkpointed away)
  Latency write_latency;
  double max_write_during_compaction_ms = 0;  // longest write that overlapped a pass
  double max_compaction_ms = 0;               // longest compact_by_policy() call
};
Result<ChurnFigures> run_churn(const BenchEnv& env, double wall_seconds);

}  // namespace k3c::bench

// Phase 6: churn. 1,000 keys, each rewritten every 10 s, for as many simulated hours as fit
// in the wall-clock budget: a ManualClock advances 10 ms per write (100 writes per simulated
// second) and compact_by_policy() runs once per simulated second on its own thread, beside
// the writer, as the store's maintenance thread would. The background maintenance thread is
// off (maintenance_interval = 0). SyncMode::kNormal keeps it fast; the file size does not
// depend on fsync. Measures the file (state.db + state.db-wal) against the live data, and
// the longest write, which would show compaction stalling writers.
#include <sqlite3.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "phases.h"
#include "store/store.h"

namespace k3c::bench {
namespace {

constexpr int kKeys = 1000;
constexpr auto kSimulatedPerWrite = std::chrono::milliseconds(10);
constexpr int64_t kWritesPerSimulatedSecond = 100;
constexpr int64_t kWritesPerSample = 60'000;  // 10 simulated minutes

std::string churn_key(int i) { return format("/registry/leases/kube-node-lease/node-%04d", i); }

// Runs compact_by_policy() on its own thread whenever tick() asked for it; ticks that come
// while a pass runs are folded into the next pass. The destructor stops the thread.
class Compactor {
 public:
  explicit Compactor(store::Store& store) : store_(store), thread_([this] { loop(); }) {}
  // An error here was already returned by an explicit stop(), or the phase failed first.
  ~Compactor() { (void)stop(); }

  void tick() {
    {
      std::lock_guard lock(mu_);
      ++asked_;
    }
    cv_.notify_one();
  }
  // Stops the thread; returns the first error a pass reported.
  Status stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
    return failure_.get();
  }
  double max_pass_ms() const { return static_cast<double>(max_pass_ns_) / 1e6; }
  // Passes started and finished so far: a write that began when `ended` was E overlapped a
  // pass if `begun` is above E when it returns.
  int64_t passes_begun() const { return begun_.load(); }
  int64_t passes_ended() const { return ended_.load(); }

 private:
  void loop() {
    int64_t done = 0;
    while (true) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || asked_ > done; });
        if (stopping_) return;
        done = asked_;
      }
      int64_t start = now_ns();
      ++begun_;
      auto r = store_.compact_by_policy();
      ++ended_;
      max_pass_ns_ = std::max(max_pass_ns_, now_ns() - start);
      if (!r.is_ok()) failure_.record(r.status());
    }
  }

  store::Store& store_;
  std::mutex mu_;  // guards asked_ and stopping_
  std::condition_variable cv_;
  int64_t asked_ = 0;
  bool stopping_ = false;
  int64_t max_pass_ns_ = 0;  // written by the thread, read after stop()
  std::atomic<int64_t> begun_{0};
  std::atomic<int64_t> ended_{0};
  FirstError failure_;
  std::thread thread_;  // last: starts once the fields above exist
};

// What the file holds, read through a separate connection: rows in the log, pages, free
// pages. For the diagnosis of a large file; empty when it cannot be read.
std::string file_breakdown(const std::string& db_path) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    const char* sql =
        "SELECT (SELECT COUNT(*) FROM kine), * FROM pragma_page_count, pragma_freelist_count, "
        "pragma_page_size";
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
      out = format("%lld rows in the log, %lld pages of %lld bytes, %lld of them free",
                   sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                   sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 2));
    }
    sqlite3_finalize(s);
  }
  sqlite3_close_v2(db);
  return out;
}

std::string mib(int64_t bytes) {
  return format("%.2f MiB", static_cast<double>(bytes) / (1 << 20));
}

struct Keys {
  std::vector<int64_t> revisions;  // each key's mod revision
  int64_t live_bytes = 0;          // sum of key + value sizes
};

Result<Keys> create_keys(store::Store& store) {
  Keys out;
  for (int i = 0; i < kKeys; ++i) {
    std::string value = make_value(kValueBytes, i);
    out.live_bytes += static_cast<int64_t>(churn_key(i).size() + value.size());
    ASSIGN_OR_RETURN(store::KeyValue kv, store.create(churn_key(i), std::move(value)));
    out.revisions.push_back(kv.mod_revision);
  }
  return out;
}

void print_samples(const std::vector<int64_t>& samples) {
  std::string line;
  for (size_t i = 0; i < samples.size(); ++i) {
    line += format("  %3zum %6.2f", (i + 1) * 10, static_cast<double>(samples[i]) / (1 << 20));
    if (i % 6 == 5 || i + 1 == samples.size()) {
      std::printf("   %s\n", line.c_str());
      line.clear();
    }
  }
}

// The rewrite loop: until the deadline, rewrites the keys in turn, advancing the clock and
// asking for a compaction pass every simulated second.
struct Rewrites {
  int64_t writes = 0;
  std::vector<int64_t> latencies_ns;
  std::vector<int64_t> size_samples;  // db_bytes every kWritesPerSample writes
  double max_overlapping_ms = 0;      // longest write that overlapped a compaction pass
  double max_alone_ms = 0;            // longest write that did not
  double max_compaction_ms = 0;       // longest compact_by_policy() pass
};

Result<Rewrites> rewrite_until(store::Store& store, ManualClock& clock, Keys& keys,
                               const std::string& db_path, SteadyClock::time_point deadline) {
  Rewrites out;
  std::string value = make_value(kValueBytes, 7);
  Compactor compactor(store);
  while (SteadyClock::now() < deadline) {
    const int i = static_cast<int>(out.writes % kKeys);
    std::string seq = std::to_string(out.writes);
    value.replace(0, seq.size(), seq);  // every write a different value
    int64_t ended_before = compactor.passes_ended();
    int64_t start = now_ns();
    auto r = store.update(churn_key(i), value, keys.revisions[i]);
    int64_t took = now_ns() - start;
    if (!r.is_ok()) return r.status();
    out.latencies_ns.push_back(took);
    double& max =
        compactor.passes_begun() > ended_before ? out.max_overlapping_ms : out.max_alone_ms;
    max = std::max(max, static_cast<double>(took) / 1e6);
    keys.revisions[i] = r->mod_revision;
    clock.advance(kSimulatedPerWrite);
    ++out.writes;
    if (out.writes % kWritesPerSimulatedSecond == 0) compactor.tick();
    if (out.writes % kWritesPerSample == 0) out.size_samples.push_back(db_bytes(db_path));
  }
  RETURN_IF_ERROR(compactor.stop());
  out.max_compaction_ms = compactor.max_pass_ms();
  return out;
}

void print_churn(const ChurnFigures& out, const Rewrites& rw, const std::string& db_path,
                 const std::string& breakdown, int64_t wal_at_end) {
  print_figure("writes / simulated time",
               format("%lld writes = %.2f simulated hours", static_cast<long long>(out.writes),
                      out.simulated_hours));
  std::printf("   file size (MiB) every simulated 10 minutes:\n");
  print_samples(rw.size_samples);
  print_figure("live data (1,000 x (key + value))", mib(out.live_bytes));
  print_figure("file at the end (state.db + -wal)",
               format("%s = %.2fx live", mib(out.final_bytes).c_str(),
                      static_cast<double>(out.final_bytes) / out.live_bytes));
  print_figure("largest file sampled", format("%s = %.2fx live", mib(out.max_bytes).c_str(),
                                              static_cast<double>(out.max_bytes) / out.live_bytes));
  print_figure("of which state.db-wal at the end", mib(wal_at_end));
  print_figure("file after the run (store closed)",
               format("%s = %.2fx live", mib(out.closed_bytes).c_str(),
                      static_cast<double>(out.closed_bytes) / out.live_bytes));
  print_figure("file contents at the end", breakdown);
  (void)db_path;
  print_figure("write latency", to_string(out.write_latency));
  print_figure("longest write overlapping a compaction", format("%.1f ms", rw.max_overlapping_ms));
  print_figure("longest write with no compaction running", format("%.1f ms", rw.max_alone_ms));
  print_figure("longest compact_by_policy() pass", format("%.1f ms", rw.max_compaction_ms));
}

}  // namespace

Result<ChurnFigures> run_churn(const BenchEnv& env, double wall_seconds) {
  print_heading("6. Churn: 1,000 keys (1 KiB values) each rewritten every simulated 10 s");
  ScratchDir dir(env, "churn");
  ManualClock clock;
  store::Options options;
  options.path = dir.db_path();
  options.sync = store::SyncMode::kNormal;
  options.clock = &clock;
  options.maintenance_interval = std::chrono::milliseconds(0);
  ASSIGN_OR_RETURN(auto store, store::open(options));
  ASSIGN_OR_RETURN(Keys keys, create_keys(*store));
  ASSIGN_OR_RETURN(Rewrites rw, rewrite_until(*store, clock, keys, dir.db_path(),
                                              SteadyClock::now() + env.scaled(wall_seconds)));
  ChurnFigures out;
  out.writes = rw.writes;
  out.live_bytes = keys.live_bytes;
  out.final_bytes = db_bytes(dir.db_path());
  out.max_bytes = out.final_bytes;
  for (int64_t s : rw.size_samples) out.max_bytes = std::max(out.max_bytes, s);
  out.simulated_hours = static_cast<double>(out.writes) * 0.010 / 3600;
  out.write_latency = summarize(rw.latencies_ns);
  out.max_write_during_compaction_ms = rw.max_overlapping_ms;
  out.max_compaction_ms = rw.max_compaction_ms;
  std::string breakdown = file_breakdown(dir.db_path());
  int64_t wal_at_end = file_bytes(dir.db_path() + "-wal");
  store->close();
  out.closed_bytes = db_bytes(dir.db_path());
  print_churn(out, rw, dir.db_path(), breakdown, wal_at_end);
  return out;
}

}  // namespace k3c::bench

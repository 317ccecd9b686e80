// Phases 1 and 2: durable writes. The raw SQLite reference and the store with 1, 16 and 64
// writers are measured in rounds (reference, 1, 16, 64, then again), so that each sees the
// same disk: on a shared machine fsync latency drifts by several times within a minute.
#include <memory>
#include <vector>

#include "phases.h"
#include "store/store.h"

namespace k3c::bench {
namespace {

constexpr int kWriterCounts[] = {1, 16, 64};
constexpr double kSecondsPerRep = 3;

struct WriteRep {
  double writes_per_s = 0;
  Latency latency;
};

// One timed run of `writers` threads creating distinct keys in a new store.
Result<WriteRep> store_write_rep(const BenchEnv& env, int writers) {
  ScratchDir dir(env, "writes");
  store::Options options;
  options.path = dir.db_path();
  options.sync = store::SyncMode::kFull;
  ASSIGN_OR_RETURN(auto store, store::open(options));
  std::vector<std::vector<int64_t>> latencies(writers);
  FirstError failure;
  const std::string value = make_value(kValueBytes, 2);
  double seconds = run_threads(writers, env.scaled(kSecondsPerRep), [&](int t, auto deadline) {
    const std::string prefix = "/registry/bench/w" + std::to_string(t) + "/";
    for (int64_t n = 0; SteadyClock::now() < deadline; ++n) {
      int64_t start = now_ns();
      auto r = store->create(prefix + std::to_string(n), value);
      if (!r.is_ok()) return failure.record(r.status());
      latencies[t].push_back(now_ns() - start);
    }
  });
  RETURN_IF_ERROR(failure.get());
  std::vector<int64_t> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  WriteRep rep;
  rep.writes_per_s = static_cast<double>(all.size()) / seconds;
  rep.latency = summarize(std::move(all));
  return rep;
}

// The rounds: returns the reference's reps and, per writer count, the store's.
Result<DurableWriteFigures> run_rounds(const BenchEnv& env) {
  DurableWriteFigures out;
  std::vector<std::vector<Latency>> latencies(std::size(kWriterCounts));
  out.store.resize(std::size(kWriterCounts));
  for (int rep = 0; rep < env.reps; ++rep) {
    ASSIGN_OR_RETURN(double raw, raw_sqlite_insert_rate(env, "FULL", env.scaled(kSecondsPerRep)));
    out.raw_full.reps.push_back(raw);
    for (size_t i = 0; i < std::size(kWriterCounts); ++i) {
      ASSIGN_OR_RETURN(WriteRep r, store_write_rep(env, kWriterCounts[i]));
      out.store[i].writers = kWriterCounts[i];
      out.store[i].rate.reps.push_back(r.writes_per_s);
      latencies[i].push_back(r.latency);
    }
  }
  for (size_t i = 0; i < out.store.size(); ++i) out.store[i].latency = combine(latencies[i]);
  return out;
}

}  // namespace

Result<DurableWriteFigures> run_durable_writes(const BenchEnv& env) {
  print_heading(
      format("1+2. Durable writes, 1 KiB values, distinct keys; %d rounds of "
             "[raw SQLite FULL, store 1, 16, 64 writers], %.1f s each",
             env.reps, kSecondsPerRep * env.scale));
  ASSIGN_OR_RETURN(DurableWriteFigures out, run_rounds(env));
  out.raw_full.median = median(out.raw_full.reps);
  print_figure("raw SQLite FULL, 1 thread (reference)", to_string(out.raw_full, "rows/s"));
  for (WriteFigures& w : out.store) {
    w.rate.median = median(w.rate.reps);
    print_figure(format("store kFull, %d writer%s", w.writers, w.writers == 1 ? "" : "s"),
                 format("%s = %.2fx raw", to_string(w.rate, "writes/s").c_str(),
                        w.rate.median / out.raw_full.median));
    print_figure("  latency", to_string(w.latency));
  }
  for (int rep = 0; rep < env.reps; ++rep) {
    ASSIGN_OR_RETURN(double raw, raw_sqlite_insert_rate(env, "NORMAL", env.scaled(2)));
    out.raw_normal.reps.push_back(raw);
  }
  out.raw_normal.median = median(out.raw_normal.reps);
  print_figure("raw SQLite NORMAL, 1 thread (context)", to_string(out.raw_normal, "rows/s"));
  return out;
}

}  // namespace k3c::bench

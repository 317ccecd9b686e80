// k3c_store_bench: throughput, latency and file-size figures for the datastore, each set
// against a reference measured in the same run (raw SQLite on the same disk) or a target.
// Not a test: it prints figures (medians over repetitions) and a summary table. See
// doc/benchmarks.md for what each figure means.
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/vfs.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "phases.h"

namespace k3c::bench {
namespace {

constexpr long kTmpfsMagic = 0x01021994;

struct Args {
  std::string dir = "/tmp";
  int reps = 3;
  double scale = 1.0;
  double churn_seconds = 60;
  std::vector<std::string> only;  // phases to run; empty = all
};

// Figures of every phase that ran; a phase that failed leaves its field empty.
struct Figures {
  std::optional<DurableWriteFigures> writes;
  std::optional<ReadFigures> reads;
  std::optional<WatchFigures> watch;
  std::optional<ChurnFigures> churn;
  bool all_ran = true;  // false when a phase failed
};

// The phase's figures, or nothing after printing why it failed.
template <typename T>
std::optional<T> kept(Result<T> r, const char* phase) {
  if (r.is_ok()) return std::move(r).value();
  std::printf("  %s FAILED: %s\n", phase, r.status().to_string().c_str());
  return std::nullopt;
}

std::string times(double x) { return format("%.2fx", x); }

std::vector<SummaryRow> write_rows(const Figures& f) {
  std::vector<SummaryRow> rows;
  if (!f.writes) return rows;
  const double raw = f.writes->raw_full.median;
  rows.push_back({"raw SQLite FULL, 1 thread", format("%.0f rows/s", raw), "", "1.00x (ref)", {}});
  for (const WriteFigures& w : f.writes->store) {
    SummaryRow row{format("store kFull writes, %d writer%s", w.writers, w.writers == 1 ? "" : "s"),
                   format("%.0f writes/s", w.rate.median),
                   "",
                   times(w.rate.median / raw) + " raw",
                   {}};
    if (w.writers == 64) {
      row.target = ">= 3x raw";
      row.met = w.rate.median >= 3 * raw;
    }
    rows.push_back(row);
  }
  const WriteFigures& most = f.writes->store.back();
  rows.push_back({format("  %d writers, write latency p50/p99", most.writers),
                  format("%.1f / %.1f ms", most.latency.p50_ms, most.latency.p99_ms),
                  "",
                  "",
                  {}});
  rows.push_back({format("  %d writers, write latency max", most.writers),
                  format("%.1f ms", most.latency.max_ms),
                  "",
                  "",
                  {}});
  rows.push_back({"raw SQLite NORMAL, 1 thread",
                  format("%.0f rows/s", f.writes->raw_normal.median),
                  "",
                  times(f.writes->raw_normal.median / raw) + " raw",
                  {}});
  return rows;
}

std::vector<SummaryRow> read_rows(const Figures& f) {
  if (!f.reads) return {};
  const ReadFigures& r = *f.reads;
  return {
      {"get, 1 thread", format("%.0f gets/s", r.gets_1.median), "", "", {}},
      {"get, 4 threads",
       format("%.0f gets/s", r.gets_4.median),
       "",
       times(r.gets_4.median / r.gets_1.median) + " 1 thread",
       {}},
      {"list 10,000 keys", format("%.1f ms", r.full_list_ms), "", "", {}},
      {"list 10,000 keys in pages of 500",
       format("%.1f ms", r.paged_list_ms),
       "",
       times(r.paged_list_ms / r.full_list_ms) + " one list",
       {}},
  };
}

std::vector<SummaryRow> watch_churn_rows(const Figures& f) {
  std::vector<SummaryRow> rows;
  if (f.watch) {
    rows.push_back(limit_row("watch p99, from the commit", f.watch->from_commit.p99_ms, 5, "ms"));
    // From before the write includes the write's fsync: a property of the disk, shown for
    // context without a target.
    rows.push_back({"watch p99, from before create()",
                    format("%.2f ms", f.watch->from_call.p99_ms),
                    "-",
                    "",
                    {}});
    rows.push_back({"watch deliveries missed", std::to_string(f.watch->missed), "0", "",
                    f.watch->missed == 0});
  }
  if (f.churn) {
    const ChurnFigures& c = *f.churn;
    rows.push_back(
        {"churn: simulated time covered", format("%.2f h", c.simulated_hours), "", "", {}});
    double ratio = static_cast<double>(c.max_bytes) / static_cast<double>(c.live_bytes);
    const double closed = static_cast<double>(c.closed_bytes) / c.live_bytes;
    rows.push_back({"churn: file after the run / live data",
                    format("%.2f / %.2f MiB", c.closed_bytes / 1048576.0, c.live_bytes / 1048576.0),
                    "< 3x", times(closed), closed < 3});
    rows.push_back({"churn: largest file during it (with WAL)",
                    format("%.2f / %.2f MiB", c.max_bytes / 1048576.0, c.live_bytes / 1048576.0),
                    "-",
                    times(ratio),
                    {}});
    rows.push_back(limit_row("churn: max write latency", c.write_latency.max_ms, 50, "ms"));
    rows.push_back(limit_row("  of writes overlapping a compaction",
                             c.max_write_during_compaction_ms, 50, "ms"));
  }
  return rows;
}

// Runs the chosen phases (all when `only` is empty) in order.
Figures run_phases(const BenchEnv& env, const Args& args) {
  auto chosen = [&](const std::string& phase) {
    return args.only.empty() ||
           std::find(args.only.begin(), args.only.end(), phase) != args.only.end();
  };
  Figures f;
  if (chosen("writes")) f.writes = kept(run_durable_writes(env), "writes");
  if (chosen("reads")) f.reads = kept(run_store_reads(env), "reads");
  if (chosen("watch")) f.watch = kept(run_watch_latency(env), "watch");
  if (chosen("churn")) f.churn = kept(run_churn(env, args.churn_seconds), "churn");
  f.all_ran = (f.writes || !chosen("writes")) && (f.reads || !chosen("reads")) &&
              (f.watch || !chosen("watch")) && (f.churn || !chosen("churn"));
  return f;
}

void print_header(const BenchEnv& env, bool on_tmpfs) {
  std::printf("k3c_store_bench: SQLite %s, %d repetitions per figure (medians), scale %.2f\n",
              sqlite3_libversion(), env.reps, env.scale);
  std::printf("scratch directory: %s\n", env.root.c_str());
  if (on_tmpfs) {
    std::printf(
        "WARNING: the scratch directory is on tmpfs: fsync costs nothing there and the "
        "durable-write figures mean little. Use --dir on a real disk.\n");
  }
}

}  // namespace
}  // namespace k3c::bench

int main(int argc, char** argv) {
  using namespace k3c::bench;
  Args args;
  CLI::App app{"k3c datastore benchmark: prints figures and a summary table"};
  app.add_option("--dir", args.dir, "parent of the scratch directory (a real disk, not tmpfs)");
  app.add_option("--reps", args.reps, "repetitions per figure")->check(CLI::Range(1, 20));
  app.add_option("--scale", args.scale, "multiplies every phase's duration")
      ->check(CLI::Range(0.01, 10.0));
  app.add_option("--churn-seconds", args.churn_seconds, "wall-clock budget of the churn phase");
  app.add_option("--only", args.only,
                 "run only these phases: writes (1+2), reads (3+4), watch (5), churn (6)")
      ->check(CLI::IsMember({"writes", "reads", "watch", "churn"}));
  CLI11_PARSE(app, argc, argv);
  // Output piped into `head` must not kill the run before it removes its scratch directory.
  signal(SIGPIPE, SIG_IGN);

  BenchEnv env;
  env.reps = args.reps;
  env.scale = args.scale;
  std::string tmpl = args.dir + "/k3c-store-bench-XXXXXX";
  if (!mkdtemp(tmpl.data())) {
    std::fprintf(stderr, "cannot create a scratch directory under %s\n", args.dir.c_str());
    return 2;
  }
  env.root = tmpl;
  struct statfs fs {};
  print_header(env, statfs(env.root.c_str(), &fs) == 0 && fs.f_type == kTmpfsMagic);

  Figures figures = run_phases(env, args);
  std::vector<SummaryRow> rows = write_rows(figures);
  for (auto& more : {read_rows(figures), watch_churn_rows(figures)}) {
    rows.insert(rows.end(), more.begin(), more.end());
  }
  print_summary(rows);

  std::error_code ec;
  std::filesystem::remove_all(env.root, ec);
  return figures.all_ran ? 0 : 1;
}

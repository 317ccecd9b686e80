// k3c_apiserver_bench: start time, memory, request rates, LIST times and watch delivery of
// the real k3c server (`k3c server --disable-agent` as a child process), driven over HTTPS/1.1
// keep-alive connections with the admin client certificate. Not a test: it prints figures
// (medians over repetitions) and a summary table with targets. See doc/benchmarks.md.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "api_phases.h"
#include "watch_floor.h"

namespace k3c::bench {
namespace {

struct Figures {
  std::optional<StartFigures> start;
  std::optional<GetFigures> gets;
  std::optional<ListFigures> lists;
  std::optional<std::vector<LoadFigures>> creates;
  std::optional<WatchPhaseFigures> watch;
  bool all_ran = true;
};

// The phase's figures, or nothing after printing why it failed.
template <typename T>
std::optional<T> kept(Result<T> r, const char* phase, bool& all_ran) {
  if (r.is_ok()) return std::move(r).value();
  std::printf("  %s FAILED: %s\n", phase, r.status().to_string().c_str());
  all_ran = false;
  return std::nullopt;
}

std::string latency_ms(const Latency& l) { return format("%.1f / %.1f ms", l.p50_ms, l.p99_ms); }

SummaryRow errors_row(const std::string& figure, int64_t errors) {
  return {figure, std::to_string(errors), "0", "", errors == 0};
}

std::vector<SummaryRow> start_get_rows(const Figures& f) {
  std::vector<SummaryRow> rows;
  if (f.start) {
    rows.push_back(
        limit_row("server start, exec -> first 200", median(f.start->start_ms), 1000, "ms"));
    rows.push_back(limit_row("idle VmRSS", median(f.start->idle_rss_mb), 20, "MB", true));
  }
  if (f.gets) {
    const LoadFigures& v = f.gets->version;
    const LoadFigures& o = f.gets->object;
    rows.push_back({"GET /version, 16 clients (floor)",
                    format("%.0f gets/s", v.rate.median),
                    "",
                    "1.00x (ref)",
                    {}});
    SummaryRow get = floor_row("GET one ConfigMap, 16 clients", o.rate.median, 10000, "gets/s");
    get.ratio += format(", %.2fx floor", o.rate.median / v.rate.median);
    rows.push_back(get);
    rows.push_back({"  GET latency p50 / p99", latency_ms(o.latency), "", "", {}});
    rows.push_back(errors_row("  GET errors (non-2xx, transport)", v.errors + o.errors));
  }
  return rows;
}

std::vector<SummaryRow> list_create_rows(const Figures& f) {
  std::vector<SummaryRow> rows;
  if (f.lists) {
    const ListFigures& l = *f.lists;
    rows.push_back(limit_row(format("LIST %zu pods", l.items_1k), l.list_1k_ms, 20, "ms", true));
    rows.push_back({format("LIST %zu pods", l.items_10k),
                    format("%.1f ms", l.list_10k_ms),
                    "",
                    format("%.1fx 1,000 pods", l.list_10k_ms / l.list_1k_ms),
                    {}});
    rows.push_back(limit_row("VmRSS holding 11,000 pods", l.rss_pods_mb, 100, "MB", true));
    rows.push_back({"pod creates while filling, 64 clients",
                    format("%.0f creates/s", l.create_per_s),
                    "",
                    "",
                    {}});
  }
  if (f.creates) {
    int64_t errors = 0;
    for (const LoadFigures& c : *f.creates) {
      rows.push_back(floor_row(format("durable creates, %d clients", c.clients), c.rate.median,
                               2000, "creates/s"));
      rows.push_back({"  create latency p50 / p99", latency_ms(c.latency), "", "", {}});
      errors += c.errors;
    }
    rows.push_back(errors_row("  create errors", errors));
  }
  return rows;
}

std::vector<SummaryRow> watch_rows(const Figures& f) {
  if (!f.watch) return {};
  const WatchDeliveryFigures& w = f.watch->k3c;
  std::vector<SummaryRow> rows = {
      limit_row("watch p99, from the create's answer", w.from_ack.p99_ms, 10, "ms", true),
      {"watch p99, from before the create", format("%.2f ms", w.from_send.p99_ms), "", "", {}},
      errors_row("watch deliveries missed", w.missed),
      errors_row("watch errors", w.errors),
  };
  if (const auto& floor = f.watch->floor) {
    rows.push_back(limit_row("watch p99 of the floor server, same load", floor->from_ack.p99_ms, 10,
                             "ms", true));
    rows.back().ratio += format(" (k3c: %.2fx floor)", w.from_ack.p99_ms / floor->from_ack.p99_ms);
    rows.push_back({"server CPU per delivery, k3c / floor",
                    format("%.1f / %.1f us", w.server_cpu_us, floor->server_cpu_us),
                    "",
                    format("%.2fx floor", w.server_cpu_us / floor->server_cpu_us),
                    {}});
  }
  return rows;
}

// Runs the start phase (always: it provides the server) and the chosen other phases (all
// when `only` is empty), in order.
Figures run_phases(const ApiBenchEnv& env, const std::vector<std::string>& only) {
  auto chosen = [&](const std::string& phase) {
    return only.empty() || std::find(only.begin(), only.end(), phase) != only.end();
  };
  Figures f;
  f.start = kept(run_starts(env), "start", f.all_ran);
  if (!f.start) return f;
  BenchServer& server = *f.start->server;
  if (chosen("gets")) f.gets = kept(run_gets(env, server), "gets", f.all_ran);
  if (chosen("lists")) f.lists = kept(run_lists(env, server), "lists", f.all_ran);
  if (chosen("creates")) f.creates = kept(run_creates(env, server), "creates", f.all_ran);
  if (chosen("watch")) {
    std::unique_ptr<WatchFloor> floor;
    if (!env.floor_binary.empty()) {
      auto started = WatchFloor::start(env.floor_binary, server);
      if (started.is_ok()) {
        floor = std::move(started).value();
      } else {
        std::printf("  watch floor FAILED to start: %s\n", started.status().to_string().c_str());
        f.all_ran = false;
      }
    }
    f.watch = kept(run_watch_delivery(env, server, floor.get()), "watch", f.all_ran);
  }
  return f;
}

}  // namespace
}  // namespace k3c::bench

int main(int argc, char** argv) {
  using namespace k3c::bench;
  ApiBenchEnv env;
  env.k3c_binary = K3C_BINARY;
  env.floor_binary = K3C_WATCH_FLOOR_SERVER;
  bool no_floor = false;
  CLI::App app{"k3c API server benchmark: prints figures and a summary table"};
  app.add_option("--k3c", env.k3c_binary, "the k3c binary to start")->check(CLI::ExistingFile);
  app.add_option("--reps", env.reps, "repetitions per figure")->check(CLI::Range(1, 10));
  app.add_option("--scale", env.scale, "multiplies every timed phase's duration")
      ->check(CLI::Range(0.05, 4.0));
  app.add_option("--client-threads", env.client_threads, "threads of the benchmark's client")
      ->check(CLI::Range(1, 8));
  std::vector<std::string> only;
  app.add_option("--only", only,
                 "run only these phases after the start: gets (2), lists (3), creates (4), "
                 "watch (5)")
      ->check(CLI::IsMember({"gets", "lists", "creates", "watch"}));
  app.add_flag("--no-floor", no_floor,
               "run the watch phase against k3c only, not also against the floor server");
  CLI11_PARSE(app, argc, argv);
  if (no_floor) env.floor_binary.clear();
  // Output piped into `head` must not kill the run before it stops the server.
  signal(SIGPIPE, SIG_IGN);
  std::printf(
      "k3c_apiserver_bench: %s, %d repetitions per figure (medians), scale %.2f, "
      "%d client thread%s\n",
      env.k3c_binary.c_str(), env.reps, env.scale, env.client_threads,
      env.client_threads == 1 ? "" : "s");

  Figures figures = run_phases(env, only);
  std::vector<SummaryRow> rows = start_get_rows(figures);
  for (auto& more : {list_create_rows(figures), watch_rows(figures)}) {
    rows.insert(rows.end(), more.begin(), more.end());
  }
  print_summary(rows);
  if (figures.start) {
    std::printf("\nserver %s\n", figures.start->server->stop().c_str());
  }
  return figures.all_ran ? 0 : 1;
}

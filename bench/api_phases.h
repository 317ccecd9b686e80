// The phases of the API server benchmark. Each drives a running k3c server over HTTPS,
// prints its figures as it goes and returns them for the summary. A phase that cannot run
// (the server does not start, a setup request fails) returns the Status that stopped it;
// errors during measured load are counted and printed, not fatal.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api_client.h"
#include "bench_report.h"
#include "bench_server.h"
#include "core/status.h"

namespace k3c::bench {

// The settings of one run, from the command line.
struct ApiBenchEnv {
  std::string k3c_binary;
  int reps = 3;            // repetitions per figure
  double scale = 1.0;      // multiplies every timed phase's duration
  int client_threads = 2;  // threads of the benchmark's own HTTPS client
  std::string floor_binary;  // k3c_watch_floor_server; "" runs the watch phase without it

  std::chrono::nanoseconds scaled(double seconds) const {
    return std::chrono::nanoseconds(static_cast<int64_t>(seconds * scale * 1e9));
  }
};

// "0", or "12 (HTTP 409 x10, transport x2; first: ...)".
std::string errors_text(const LoadResult& r);
// User + system CPU time this program (all its threads) has used so far.
double self_cpu_seconds();

// Phase 1: `reps` fresh starts on empty data dirs, each followed by 1 s idle; the server of
// the last start keeps running for the other phases.
struct StartFigures {
  std::vector<double> start_ms;       // exec to the first 200 of GET /api/v1/namespaces
  std::vector<double> kubeconfig_ms;  // exec to the kubeconfig file
  std::vector<double> idle_rss_mb;    // VmRSS 1 s after it answered
  std::unique_ptr<BenchServer> server;
};
Result<StartFigures> run_starts(const ApiBenchEnv& env);

// A load figure measured in `reps` repetitions.
struct LoadFigures {
  int clients = 0;
  Rate rate;                 // 2xx answers per second
  Latency latency;           // per request
  int64_t errors = 0;        // non-2xx answers and transport errors, all reps
  double server_cpu_us = 0;  // server CPU per answered request
  double client_cpu_us = 0;  // this program's CPU per answered request
};

// Phase 2: GET /version (the floor: TLS, HTTP, routing) and GET of one ConfigMap.
struct GetFigures {
  LoadFigures version;
  LoadFigures object;
};
Result<GetFigures> run_gets(const ApiBenchEnv& env, BenchServer& server);

// Phase 3: LISTs of 1,000 pods (namespace bench1k) and of 10,000 pods (default), and the
// server's RSS holding them.
struct ListFigures {
  double create_per_s = 0;  // pod creates while filling (64 clients)
  int64_t create_errors = 0;
  size_t items_1k = 0;  // items in the LIST answers (checks the set-up)
  size_t items_10k = 0;
  double list_1k_ms = 0;  // median of the timed LISTs
  double list_10k_ms = 0;
  double bytes_10k = 0;  // size of one answer
  double rss_before_mb = 0;
  double rss_pods_mb = 0;  // after creating the pods and listing them
};
Result<ListFigures> run_lists(const ApiBenchEnv& env, BenchServer& server);

// Phase 4: durable ConfigMap creates from 32 and 64 clients, in rounds.
Result<std::vector<LoadFigures>> run_creates(const ApiBenchEnv& env, BenchServer& server);

// Phase 5: delivery latency of ConfigMap creates to 1,000 watchers.
struct WatchDeliveryFigures {
  Latency from_ack;   // from the create's answer arriving to the event's bytes being read
  Latency from_send;  // from just before the create request was written
  Latency create;     // the creates themselves
  Latency fan_out;    // per event, from the first watcher's receipt to the last one's
  double rss_mb = 0;  // server VmRSS with the watches open
  double events_per_s = 0;
  int64_t expected = 0;  // (watcher, event) deliveries, all reps
  int64_t missed = 0;
  int64_t errors = 0;        // failed creates, ERROR events, broken watches
  double server_cpu_us = 0;  // per delivery, from the first create to the end of the drain
  double client_cpu_us = 0;  // this program's, likewise
};
// The same phase against k3c and, when `floor` is given, alternately against the floor server
// (watch_floor.h).
struct WatchPhaseFigures {
  WatchDeliveryFigures k3c;
  std::optional<WatchDeliveryFigures> floor;
};
class WatchFloor;
Result<WatchPhaseFigures> run_watch_delivery(const ApiBenchEnv& env, BenchServer& server,
                                             WatchFloor* floor);

}  // namespace k3c::bench

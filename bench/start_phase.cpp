// Phase 1: server start and idle memory. Each repetition starts the real k3c binary on an
// empty data dir and times it from the exec to the first 200 answer of GET
// /api/v1/namespaces (the poll retries every millisecond), then reads VmRSS after 1 s idle.
#include <thread>

#include "api_phases.h"

namespace k3c::bench {

Result<StartFigures> run_starts(const ApiBenchEnv& env) {
  print_heading(
      format("1. Server start on an empty data dir, and idle RSS; %d fresh starts", env.reps));
  StartFigures out;
  for (int rep = 0; rep < env.reps; ++rep) {
    out.server.reset();  // the previous one stops first: SIGTERM, SIGKILL after 10 s
    ASSIGN_OR_RETURN(out.server, BenchServer::start(env.k3c_binary, std::chrono::seconds(30)));
    out.start_ms.push_back(out.server->start_ms());
    out.kubeconfig_ms.push_back(out.server->kubeconfig_ms());
    std::this_thread::sleep_for(std::chrono::seconds(1));
    out.idle_rss_mb.push_back(static_cast<double>(out.server->rss_bytes()) / 1e6);
  }
  auto listed = [](const std::vector<double>& v, const char* fmt) {
    std::string s = format(fmt, median(v)) + " (reps";
    for (double x : v) s += format(" %.1f", x);
    return s + ")";
  };
  print_figure("exec -> kubeconfig written", listed(out.kubeconfig_ms, "%.1f ms"));
  print_figure("exec -> first 200 of GET /api/v1/namespaces", listed(out.start_ms, "%.1f ms"));
  print_figure("idle VmRSS 1 s after start", listed(out.idle_rss_mb, "%.1f MB"));
  print_figure("server pid (kept for the next phases)", std::to_string(out.server->pid()));
  return out;
}

}  // namespace k3c::bench

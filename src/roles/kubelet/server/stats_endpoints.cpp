// /stats/summary and /metrics/resource (see stats_endpoints.h).
#include "roles/kubelet/server/stats_endpoints.h"

#include "roles/kubelet/server/resource_metrics.h"
#include "roles/kubelet/server/stats_summary.h"

namespace k3c::kubelet {
namespace {

http::Response answer(int status, const char* type, std::string body) {
  http::Response r;
  r.status = status;
  r.set_header("Content-Type", type);
  r.body = std::move(body);
  return r;
}

Result<StatsSnapshot> collect(const StatsSource& stats) {
  if (!stats) return error(Code::kServiceUnavailable, "the container runtime is not running");
  return stats();
}

}  // namespace

http::Response stats_summary_response(const StatsSource& stats) {
  auto snapshot = collect(stats);
  if (!snapshot.is_ok()) {
    const int status = snapshot.status().code() == Code::kServiceUnavailable ? 503 : 500;
    return answer(status, "text/plain; charset=utf-8",
                  "failed to get node summary: " + snapshot.status().message() + "\n");
  }
  return answer(200, "application/json", stats_summary(*snapshot).dump(2));
}

http::Response resource_metrics_response(const StatsSource& stats) {
  auto snapshot = collect(stats);
  if (!snapshot.is_ok()) {
    const int status = snapshot.status().code() == Code::kServiceUnavailable ? 503 : 500;
    return answer(status, "text/plain; charset=utf-8", snapshot.status().message() + "\n");
  }
  return answer(200, "text/plain; version=0.0.4; charset=utf-8", resource_metrics(*snapshot));
}

}  // namespace k3c::kubelet

// /stats/summary and /metrics/resource (see stats_endpoints.h).
#include "roles/kubelet/server/stats_endpoints.h"

#include "core/prometheus_text.h"
#include "http/text_response.h"
#include "roles/kubelet/server/resource_metrics.h"
#include "roles/kubelet/server/stats_summary.h"

namespace k3c::kubelet {
namespace {

Result<StatsSnapshot> collect(const StatsSource& stats) {
  if (!stats) return error(Code::kServiceUnavailable, "the container runtime is not running");
  return stats();
}

}  // namespace

http::Response stats_summary_response(const StatsSource& stats) {
  auto snapshot = collect(stats);
  if (!snapshot.is_ok()) {
    const int status = snapshot.status().code() == Code::kServiceUnavailable ? 503 : 500;
    return http::text_response(status,
                               "failed to get node summary: " + snapshot.status().message() + "\n");
  }
  return http::text_response(200, stats_summary(*snapshot).dump(2), "application/json");
}

http::Response resource_metrics_response(const StatsSource& stats) {
  auto snapshot = collect(stats);
  if (!snapshot.is_ok()) {
    const int status = snapshot.status().code() == Code::kServiceUnavailable ? 503 : 500;
    return http::text_response(status, snapshot.status().message() + "\n");
  }
  return http::text_response(200, resource_metrics(*snapshot), kPrometheusTextType);
}

}  // namespace k3c::kubelet

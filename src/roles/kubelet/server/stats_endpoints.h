// The kubelet API's /stats/summary and /metrics/resource answers, from a stats source
// (StatsCollector::collect in the kubelet; a function for tests).
#pragma once

#include <functional>

#include "core/status.h"
#include "http/http.h"
#include "roles/kubelet/server/stats_snapshot.h"

namespace k3c::kubelet {

using StatsSource = std::function<Result<StatsSnapshot>()>;

// 200 application/json with the Summary API; 503 without a source, 500 when it fails.
http::Response stats_summary_response(const StatsSource& stats);
// 200 text/plain; version=0.0.4 (Prometheus text); same errors.
http::Response resource_metrics_response(const StatsSource& stats);

}  // namespace k3c::kubelet

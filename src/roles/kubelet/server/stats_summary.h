// /stats/summary: the Summary API (upstream's stats/v1alpha1) as JSON, from a snapshot.
#pragma once

#include <nlohmann/json.hpp>

#include "roles/kubelet/server/stats_snapshot.h"

namespace k3c::kubelet {

// {"node": {nodeName, startTime, cpu, memory}, "pods": [{podRef, startTime, containers,
// cpu, memory}]}; times RFC 3339 in UTC; usageNanoCores only when a rate is known.
nlohmann::json stats_summary(const StatsSnapshot& snapshot);

}  // namespace k3c::kubelet

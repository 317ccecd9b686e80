// /metrics/resource: upstream kubelet's resource metrics (what metrics-server scrapes) in the
// Prometheus text format, from a snapshot: the families in name order with their [STABLE]
// help lines, labels in name order, values as Go's strconv 'g' writes them, each sample with
// its timestamp in milliseconds.
#pragma once

#include <string>

#include "roles/kubelet/server/stats_snapshot.h"

namespace k3c::kubelet {

std::string resource_metrics(const StatsSnapshot& snapshot);

}  // namespace k3c::kubelet

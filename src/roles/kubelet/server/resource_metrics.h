// /metrics/resource: upstream kubelet's resource metrics (what metrics-server scrapes) in the
// Prometheus text format, from a snapshot: the families in name order with their [STABLE]
// help lines, labels in name order, values as Go's strconv 'g' writes them, each sample with
// its timestamp in milliseconds.
#pragma once

#include <string>

#include "roles/kubelet/server/stats_snapshot.h"

namespace k3c::kubelet {

std::string resource_metrics(const StatsSnapshot& snapshot);

// A float64 as Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that read back
// as `v`, in exponent form when the exponent is below -4 or at least 6 ("1.2e+07").
std::string go_float(double v);

}  // namespace k3c::kubelet

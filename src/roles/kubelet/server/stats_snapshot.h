// One sample of the node's and its pods' resource usage: what /stats/summary and
// /metrics/resource are written from (stats_summary.h, resource_metrics.h), gathered by the
// StatsCollector (stats_collector.h). Plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct Usage {
  runtime::WallTime time{};
  uint64_t cpu_usage_core_nanoseconds = 0;       // cumulative
  std::optional<uint64_t> cpu_usage_nano_cores;  // the rate since the previous sample, if any
  uint64_t memory_usage_bytes = 0;
  uint64_t memory_working_set_bytes = 0;
  std::optional<uint64_t> memory_available_bytes;  // the node's (its limit less working set)
};

struct ContainerSample {
  std::string name;
  runtime::WallTime start_time{};
  Usage usage;
};

struct PodSample {
  std::string name, namespace_name, uid;
  runtime::WallTime start_time{};  // the sandbox's creation
  std::vector<ContainerSample> containers;
  Usage usage;  // the sum of its containers'
};

struct StatsSnapshot {
  std::string node_name;
  runtime::WallTime node_start_time{};  // the machine's boot
  Usage node;
  std::vector<PodSample> pods;
  bool scrape_error = false;  // some container's stats could not be read
};

}  // namespace k3c::kubelet

// Gathers a StatsSnapshot (stats_snapshot.h) for /stats/summary and /metrics/resource: each
// running container's cgroup figures through RuntimeService::container_stats, summed per
// pod (ready sandboxes), and the node's from /proc/stat and /proc/meminfo (cadvisor's root
// container: CPU time outside idle and iowait; usage = MemTotal - MemFree, working set =
// usage - Inactive(file), available = MemTotal - working set). CPU rates (usageNanoCores)
// are taken between one collection and the previous one.
//
// Thread-safe: collect() may run on several request threads at once (a mutex guards the
// previous samples). The runtime must outlive the collector.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/proc_text.h"
#include "core/status.h"
#include "roles/kubelet/server/stats_snapshot.h"

namespace k3c::kubelet {

// The CPU time of the machine in nanoseconds from /proc/stat's first line ("cpu user nice
// system idle iowait irq softirq steal ..."): everything but idle and iowait.
Result<uint64_t> proc_stat_cpu_nanos(std::string_view proc_stat, long ticks_per_second);

struct MemInfo {
  uint64_t total = 0, free = 0, inactive_file = 0;  // bytes
};
Result<MemInfo> parse_meminfo(std::string_view meminfo);

// Rates of cumulative counters between successive samples of the same key.
class RateTracker {
 public:
  // The rate per second since the last sample of `key` (nullopt on the first one, or when
  // the counter went back, as after a restart); remembers this sample.
  std::optional<uint64_t> update(const std::string& key, uint64_t cumulative, runtime::WallTime at);
  // Forgets keys not sampled since the last call (containers that are gone).
  void sweep();

 private:
  struct Sample {
    uint64_t value;
    runtime::WallTime at;
    bool seen;
  };
  std::map<std::string, Sample> samples_;
};

class StatsCollector {
 public:
  using ReadFile = std::function<Result<std::string>(const std::string& path)>;
  // `read_file` null: the real files.
  StatsCollector(std::string node_name, runtime::RuntimeService& runtime,
                 ReadFile read_file = nullptr);
  Result<StatsSnapshot> collect();

 private:
  Status node_usage(StatsSnapshot& snapshot);

  const std::string node_name_;
  runtime::RuntimeService& runtime_;
  ReadFile read_file_;
  std::mutex mu_;  // guards rates_
  RateTracker rates_;
};

}  // namespace k3c::kubelet

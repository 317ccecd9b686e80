// Where the eviction manager's snapshot of the node comes from (eviction_decision.h's
// NodeStats), behind a seam: EvictionStatsSource is the interface; LinuxEvictionStats reads
// the machine and the runtime:
//   memory   /proc/meminfo: capacity MemTotal, available = MemTotal - working set (MemTotal -
//            MemFree - Inactive(file)), as the kubelet's stats (server/stats_collector.h)
//   nodefs   statvfs(2) of the kubelet's directory (<data-dir>/agent); the images live on
//            it too (the image GC's filesystem), so imagefs is the same, not dedicated
//   pids     min(/proc/sys/kernel/pid_max, threads-max) and sysinfo(2)'s process count, as
//            upstream's pidlimit
//   pods     per running container of a ready sandbox: RuntimeService::container_stats
//            (working set, processes, writable layer) and `du` of its log directory; per pod
//            `du` of each emptyDir (<data-dir>/agent/pods/<uid>/volumes/kubernetes.io~empty-dir)
//
// Thread-safety: collect() from one thread at a time (the housekeeping thread).
#pragma once

#include <functional>
#include <string>

#include "core/status.h"
#include "roles/kubelet/eviction/eviction_decision.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

class EvictionStatsSource {
 public:
  virtual ~EvictionStatsSource() = default;
  virtual Result<NodeStats> collect() = 0;
};

class LinuxEvictionStats final : public EvictionStatsSource {
 public:
  // `agent_dir`: <data-dir>/agent, the kubelet's root (its volumes below pods/).
  LinuxEvictionStats(runtime::RuntimeService& runtime, std::string agent_dir)
      : runtime_(runtime), agent_dir_(std::move(agent_dir)) {}
  Result<NodeStats> collect() override;

 private:
  Status pods(NodeStats& stats);

  runtime::RuntimeService& runtime_;
  const std::string agent_dir_;
};

// The pid limit from the contents of pid_max and threads-max (the smaller; 0 when neither
// reads as a number).
uint64_t pid_limit(std::string_view pid_max, std::string_view threads_max);

}  // namespace k3c::kubelet

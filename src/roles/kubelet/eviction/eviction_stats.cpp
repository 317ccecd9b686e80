// The eviction manager's snapshot of the node from Linux and the runtime (see eviction_stats.h).
#include "roles/kubelet/eviction/eviction_stats.h"

#include <sys/statvfs.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "roles/kubelet/server/stats_collector.h"
#include "roles/kubelet/volumes/volume_paths.h"
#include "runtime/files.h"

namespace k3c::kubelet {
namespace {

constexpr size_t kSmallFile = 64 * 1024;

std::optional<uint64_t> number_in(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

Result<FsStats> statvfs_of(const std::string& path) {
  struct statvfs fs {};
  if (statvfs(path.c_str(), &fs) != 0)
    return error(Code::kInternal, "statvfs " + path + ": " + std::strerror(errno));
  return FsStats{static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize,
                 static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize,
                 static_cast<uint64_t>(fs.f_files), static_cast<uint64_t>(fs.f_favail)};
}

}  // namespace

uint64_t pid_limit(std::string_view pid_max, std::string_view threads_max) {
  auto a = number_in(pid_max), b = number_in(threads_max);
  if (a && b) return std::min(*a, *b);
  return a.value_or(b.value_or(0));
}

Result<NodeStats> LinuxEvictionStats::collect() {
  NodeStats stats;
  if (auto meminfo = runtime::read_file("/proc/meminfo", kSmallFile); meminfo.is_ok()) {
    if (auto memory = parse_meminfo(*meminfo); memory.is_ok()) {
      const uint64_t used = memory->total - std::min(memory->total, memory->free);
      const uint64_t working_set = used - std::min(used, memory->inactive_file);
      stats.memory_capacity_bytes = memory->total;
      stats.memory_available_bytes = memory->total - working_set;
    }
  }
  if (auto fs = statvfs_of(agent_dir_); fs.is_ok()) {
    stats.nodefs = *fs;
    stats.imagefs = *fs;
  }
  auto pid_max = runtime::read_file("/proc/sys/kernel/pid_max", kSmallFile);
  auto threads_max = runtime::read_file("/proc/sys/kernel/threads-max", kSmallFile);
  const uint64_t limit =
      pid_limit(pid_max.is_ok() ? *pid_max : "", threads_max.is_ok() ? *threads_max : "");
  struct sysinfo info {};
  if (limit > 0 && sysinfo(&info) == 0) {
    stats.max_pids = limit;
    stats.processes = info.procs;
  }
  RETURN_IF_ERROR(pods(stats));
  return stats;
}

Status LinuxEvictionStats::pods(NodeStats& stats) {
  ASSIGN_OR_RETURN(std::vector<runtime::SandboxStatus> sandboxes, runtime_.list_pod_sandboxes());
  ASSIGN_OR_RETURN(std::vector<runtime::ContainerStatus> containers, runtime_.list_containers());
  for (const runtime::SandboxStatus& sandbox : sandboxes) {
    if (sandbox.state != runtime::SandboxState::kReady) continue;
    PodUsage& pod = stats.pods[sandbox.config.pod_uid];
    for (const runtime::ContainerStatus& c : containers) {
      if (c.sandbox_id != sandbox.id || c.state != runtime::ContainerState::kRunning) continue;
      auto figures = runtime_.container_stats(c.id);
      if (!figures.is_ok()) continue;  // exited meanwhile
      ContainerUsage usage;
      usage.name = c.name;
      usage.memory_working_set_bytes = figures->memory_working_set_bytes;
      usage.rootfs_bytes = figures->writable_layer_bytes.value_or(0);
      pod.processes += figures->process_count;
      if (!sandbox.config.log_directory.empty()) {
        auto logs = runtime::disk_usage(sandbox.config.log_directory + "/" + c.name);
        if (logs.is_ok()) usage.logs_bytes = logs->bytes;
      }
      pod.containers.push_back(std::move(usage));
    }
    const std::string empty_dirs = volumes::pod_dir(agent_dir_, sandbox.config.pod_uid) +
                                   "/volumes/" + volumes::plugin_dir_name("emptyDir");
    auto names = runtime::list_dir(empty_dirs);
    for (const std::string& name : names.is_ok() ? *names : std::vector<std::string>()) {
      auto used = runtime::disk_usage(empty_dirs + "/" + name);
      if (used.is_ok()) pod.volume_bytes[name] = used->bytes;
    }
  }
  return Status::ok();
}

}  // namespace k3c::kubelet

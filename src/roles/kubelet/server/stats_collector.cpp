// The stats collector (see stats_collector.h).
#include "roles/kubelet/server/stats_collector.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace k3c::kubelet {
namespace {

Result<std::string> read_real_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return error(Code::kNotFound, "cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void add(Usage& sum, const Usage& part) {
  sum.cpu_usage_core_nanoseconds += part.cpu_usage_core_nanoseconds;
  sum.memory_usage_bytes += part.memory_usage_bytes;
  sum.memory_working_set_bytes += part.memory_working_set_bytes;
}

}  // namespace

Result<uint64_t> proc_stat_cpu_nanos(std::string_view proc_stat, long ticks_per_second) {
  const std::vector<uint64_t> v = proc_numbers_after(proc_stat, "cpu ");
  if (v.size() < 4 || ticks_per_second <= 0)
    return error(Code::kInternal, "/proc/stat has no cpu line");
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  uint64_t busy = 0;
  for (size_t i = 0; i < v.size() && i < 8; ++i)
    if (i != 3 && i != 4) busy += v[i];
  return busy * (1'000'000'000ULL / static_cast<uint64_t>(ticks_per_second));
}

Result<MemInfo> parse_meminfo(std::string_view meminfo) {
  const auto kb = [&](std::string_view key) -> std::optional<uint64_t> {
    const std::vector<uint64_t> v = proc_numbers_after(meminfo, key);
    if (v.empty()) return std::nullopt;
    return v[0] * 1024;
  };
  auto total = kb("MemTotal:"), free = kb("MemFree:"), inactive = kb("Inactive(file):");
  if (!total || !free) return error(Code::kInternal, "/proc/meminfo has no MemTotal or MemFree");
  return MemInfo{*total, *free, inactive.value_or(0)};
}

std::optional<uint64_t> RateTracker::update(const std::string& key, uint64_t cumulative,
                                            runtime::WallTime at) {
  auto found = samples_.find(key);
  std::optional<uint64_t> rate;
  if (found != samples_.end() && cumulative >= found->second.value && at > found->second.at) {
    const auto nanos =
        std::chrono::duration_cast<std::chrono::nanoseconds>(at - found->second.at).count();
    rate = static_cast<uint64_t>(static_cast<double>(cumulative - found->second.value) * 1e9 /
                                 static_cast<double>(nanos));
  }
  samples_[key] = {cumulative, at, true};
  return rate;
}

void RateTracker::sweep() {
  for (auto it = samples_.begin(); it != samples_.end();) {
    if (!it->second.seen) {
      it = samples_.erase(it);
    } else {
      it->second.seen = false;
      ++it;
    }
  }
}

StatsCollector::StatsCollector(std::string node_name, runtime::RuntimeService& runtime,
                               ReadFile read_file)
    : node_name_(std::move(node_name)),
      runtime_(runtime),
      read_file_(read_file ? std::move(read_file) : ReadFile(read_real_file)) {}

Status StatsCollector::node_usage(StatsSnapshot& snapshot) {
  ASSIGN_OR_RETURN(std::string stat, read_file_("/proc/stat"));
  ASSIGN_OR_RETURN(std::string meminfo, read_file_("/proc/meminfo"));
  ASSIGN_OR_RETURN(snapshot.node.cpu_usage_core_nanoseconds,
                   proc_stat_cpu_nanos(stat, sysconf(_SC_CLK_TCK)));
  ASSIGN_OR_RETURN(int64_t boot, proc_stat_boot_time(stat));
  snapshot.node_start_time = runtime::WallTime(std::chrono::seconds(boot));
  ASSIGN_OR_RETURN(MemInfo memory, parse_meminfo(meminfo));
  Usage& node = snapshot.node;
  node.memory_usage_bytes = memory.total - std::min(memory.total, memory.free);
  node.memory_working_set_bytes =
      node.memory_usage_bytes - std::min(node.memory_usage_bytes, memory.inactive_file);
  node.memory_available_bytes = memory.total - node.memory_working_set_bytes;
  return Status::ok();
}

Result<StatsSnapshot> StatsCollector::collect() {
  StatsSnapshot snapshot;
  snapshot.node_name = node_name_;
  snapshot.node.time = std::chrono::system_clock::now();
  RETURN_IF_ERROR(node_usage(snapshot));
  ASSIGN_OR_RETURN(std::vector<runtime::SandboxStatus> sandboxes, runtime_.list_pod_sandboxes());
  ASSIGN_OR_RETURN(std::vector<runtime::ContainerStatus> containers, runtime_.list_containers());
  std::lock_guard lock(mu_);
  snapshot.node.cpu_usage_nano_cores =
      rates_.update("node", snapshot.node.cpu_usage_core_nanoseconds, snapshot.node.time);
  for (const runtime::SandboxStatus& sandbox : sandboxes) {
    if (sandbox.state != runtime::SandboxState::kReady) continue;
    PodSample pod;
    pod.name = sandbox.config.pod_name;
    pod.namespace_name = sandbox.config.pod_namespace;
    pod.uid = sandbox.config.pod_uid;
    pod.start_time = sandbox.created_at;
    pod.usage.time = snapshot.node.time;
    for (const runtime::ContainerStatus& c : containers) {
      if (c.sandbox_id != sandbox.id || c.state != runtime::ContainerState::kRunning) continue;
      auto stats = runtime_.container_stats(c.id);
      if (!stats.is_ok()) {
        snapshot.scrape_error = true;
        continue;
      }
      ContainerSample sample;
      sample.name = c.name;
      sample.start_time = c.started_at;
      sample.usage.time = stats->timestamp;
      sample.usage.cpu_usage_core_nanoseconds = stats->cpu_usage_nanos;
      sample.usage.memory_usage_bytes = stats->memory_usage_bytes;
      sample.usage.memory_working_set_bytes = stats->memory_working_set_bytes;
      sample.usage.cpu_usage_nano_cores =
          rates_.update("container/" + c.id, stats->cpu_usage_nanos, stats->timestamp);
      add(pod.usage, sample.usage);
      pod.containers.push_back(std::move(sample));
    }
    pod.usage.cpu_usage_nano_cores =
        rates_.update("pod/" + sandbox.id, pod.usage.cpu_usage_core_nanoseconds, pod.usage.time);
    snapshot.pods.push_back(std::move(pod));
  }
  rates_.sweep();
  return snapshot;
}

}  // namespace k3c::kubelet

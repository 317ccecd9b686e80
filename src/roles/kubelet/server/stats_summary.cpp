// The Summary API's JSON (see stats_summary.h).
#include "roles/kubelet/server/stats_summary.h"

#include <ctime>

namespace k3c::kubelet {
namespace {

using nlohmann::json;

// RFC 3339 in UTC with seconds, as metav1.Time marshals.
std::string rfc3339(runtime::WallTime t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

json cpu_of(const Usage& u) {
  json cpu = {{"time", rfc3339(u.time)}, {"usageCoreNanoSeconds", u.cpu_usage_core_nanoseconds}};
  if (u.cpu_usage_nano_cores) cpu["usageNanoCores"] = *u.cpu_usage_nano_cores;
  return cpu;
}

json memory_of(const Usage& u) {
  json memory = {{"time", rfc3339(u.time)},
                 {"usageBytes", u.memory_usage_bytes},
                 {"workingSetBytes", u.memory_working_set_bytes}};
  if (u.memory_available_bytes) memory["availableBytes"] = *u.memory_available_bytes;
  return memory;
}

}  // namespace

json stats_summary(const StatsSnapshot& snapshot) {
  json node = {{"nodeName", snapshot.node_name},
               {"startTime", rfc3339(snapshot.node_start_time)},
               {"cpu", cpu_of(snapshot.node)},
               {"memory", memory_of(snapshot.node)}};
  json pods = json::array();
  for (const PodSample& pod : snapshot.pods) {
    json containers = json::array();
    for (const ContainerSample& c : pod.containers) {
      containers.push_back({{"name", c.name},
                            {"startTime", rfc3339(c.start_time)},
                            {"cpu", cpu_of(c.usage)},
                            {"memory", memory_of(c.usage)}});
    }
    pods.push_back(
        {{"podRef", {{"name", pod.name}, {"namespace", pod.namespace_name}, {"uid", pod.uid}}},
         {"startTime", rfc3339(pod.start_time)},
         {"containers", std::move(containers)},
         {"cpu", cpu_of(pod.usage)},
         {"memory", memory_of(pod.usage)}});
  }
  return {{"node", std::move(node)}, {"pods", std::move(pods)}};
}

}  // namespace k3c::kubelet

// The resource metrics text (see resource_metrics.h).
#include "roles/kubelet/server/resource_metrics.h"

#include <chrono>

#include "core/go_format.h"
#include "core/prometheus_text.h"

namespace k3c::kubelet {
namespace {

std::string millis(runtime::WallTime t) {
  return std::to_string(
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
}

double seconds_of(uint64_t nanos) { return static_cast<double>(nanos) / 1e9; }

void family(std::string& out, const char* name, const char* type, const char* help) {
  prometheus_family(out, name, type, std::string("[STABLE] ") + help);
}

void sample(std::string& out, const char* name, const std::string& labels, double value,
            runtime::WallTime time) {
  out += name;
  if (!labels.empty()) out += "{" + labels + "}";
  out += " " + go_float(value) + " " + millis(time) + "\n";
}

std::string container_labels(const PodSample& pod, const ContainerSample& c) {
  return "container=\"" + prometheus_escaped(c.name) + "\",namespace=\"" +
         prometheus_escaped(pod.namespace_name) + "\",pod=\"" + prometheus_escaped(pod.name) + "\"";
}

std::string pod_labels(const PodSample& pod) {
  return "namespace=\"" + prometheus_escaped(pod.namespace_name) + "\",pod=\"" +
         prometheus_escaped(pod.name) + "\"";
}

}  // namespace

std::string resource_metrics(const StatsSnapshot& s) {
  std::string out;
  family(out, "container_cpu_usage_seconds_total", "counter",
         "Cumulative cpu time consumed by the container in core-seconds");
  for (const PodSample& pod : s.pods)
    for (const ContainerSample& c : pod.containers)
      sample(out, "container_cpu_usage_seconds_total", container_labels(pod, c),
             seconds_of(c.usage.cpu_usage_core_nanoseconds), c.usage.time);
  family(out, "container_memory_working_set_bytes", "gauge",
         "Current working set of the container in bytes");
  for (const PodSample& pod : s.pods)
    for (const ContainerSample& c : pod.containers)
      sample(out, "container_memory_working_set_bytes", container_labels(pod, c),
             static_cast<double>(c.usage.memory_working_set_bytes), c.usage.time);
  family(out, "container_start_time_seconds", "gauge",
         "Start time of the container since unix epoch in seconds");
  for (const PodSample& pod : s.pods)
    for (const ContainerSample& c : pod.containers)
      sample(out, "container_start_time_seconds", container_labels(pod, c),
             static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     c.start_time.time_since_epoch())
                                     .count()) /
                 1e9,
             c.start_time);
  family(out, "node_cpu_usage_seconds_total", "counter",
         "Cumulative cpu time consumed by the node in core-seconds");
  sample(out, "node_cpu_usage_seconds_total", "", seconds_of(s.node.cpu_usage_core_nanoseconds),
         s.node.time);
  family(out, "node_memory_working_set_bytes", "gauge", "Current working set of the node in bytes");
  sample(out, "node_memory_working_set_bytes", "",
         static_cast<double>(s.node.memory_working_set_bytes), s.node.time);
  family(out, "pod_cpu_usage_seconds_total", "counter",
         "Cumulative cpu time consumed by the pod in core-seconds");
  for (const PodSample& pod : s.pods)
    sample(out, "pod_cpu_usage_seconds_total", pod_labels(pod),
           seconds_of(pod.usage.cpu_usage_core_nanoseconds), pod.usage.time);
  family(out, "pod_memory_working_set_bytes", "gauge", "Current working set of the pod in bytes");
  for (const PodSample& pod : s.pods)
    sample(out, "pod_memory_working_set_bytes", pod_labels(pod),
           static_cast<double>(pod.usage.memory_working_set_bytes), pod.usage.time);
  family(out, "resource_scrape_error", "gauge",
         "1 if there was an error while getting container metrics, 0 otherwise");
  out += std::string("resource_scrape_error ") + (s.scrape_error ? "1" : "0") + "\n";
  return out;
}

}  // namespace k3c::kubelet

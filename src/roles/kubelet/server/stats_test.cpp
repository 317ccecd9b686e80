// The kubelet's resource statistics: /proc parsers, CPU rates, the Summary API's JSON shape,
// the Prometheus text of /metrics/resource, Go's float spelling, and a collection over the
// fake runtime.
#include <catch2/catch.hpp>

#include "roles/kubelet/pods/testing/fake_runtime.h"
#include "roles/kubelet/server/kubelet_api.h"
#include "roles/kubelet/server/resource_metrics.h"
#include "roles/kubelet/server/stats_collector.h"
#include "roles/kubelet/server/stats_summary.h"

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;
using runtime::WallTime;

constexpr char kProcStat[] =
    "cpu  100 20 30 1000 50 5 5 2 7 0\n"
    "cpu0 50 10 15 500 25 2 3 1 3 0\n"
    "intr 12345\n"
    "btime 1764547200\n";
constexpr char kMeminfo[] =
    "MemTotal:       1000 kB\n"
    "MemFree:         200 kB\n"
    "MemAvailable:    600 kB\n"
    "Inactive(file):  300 kB\n";

WallTime at(int64_t seconds) { return WallTime(std::chrono::seconds(seconds)); }

StatsSnapshot sample_snapshot() {
  StatsSnapshot s;
  s.node_name = "node-a";
  s.node_start_time = at(1764547200);
  s.node.time = at(1764550800) + 250ms;
  s.node.cpu_usage_core_nanoseconds = 1234500000000;
  s.node.cpu_usage_nano_cores = 150000000;
  s.node.memory_usage_bytes = 819200;
  s.node.memory_working_set_bytes = 512000;
  s.node.memory_available_bytes = 512000;
  PodSample pod;
  pod.name = "web-1";
  pod.namespace_name = "default";
  pod.uid = "uid-1";
  pod.start_time = at(1764550000);
  ContainerSample c;
  c.name = "app";
  c.start_time = at(1764550001);
  c.usage.time = at(1764550800);
  c.usage.cpu_usage_core_nanoseconds = 70000000;
  c.usage.memory_usage_bytes = 12000000;
  c.usage.memory_working_set_bytes = 11534336;
  pod.containers.push_back(c);
  pod.usage = c.usage;
  s.pods.push_back(pod);
  return s;
}

}  // namespace

TEST_CASE("the node's CPU time, boot time and memory come from /proc") {
  // user nice system irq softirq steal: 100+20+30+5+5+2 ticks at 100 per second.
  CHECK(*proc_stat_cpu_nanos(kProcStat, 100) == 1'620'000'000ULL);
  CHECK(*proc_stat_boot_time(kProcStat) == 1764547200);
  CHECK_FALSE(proc_stat_cpu_nanos("intr 1\n", 100).is_ok());
  auto memory = parse_meminfo(kMeminfo);
  REQUIRE(memory.is_ok());
  CHECK(memory->total == 1000 * 1024);
  CHECK(memory->free == 200 * 1024);
  CHECK(memory->inactive_file == 300 * 1024);
  CHECK_FALSE(parse_meminfo("Buffers: 1 kB\n").is_ok());
}

TEST_CASE("CPU rates are taken between successive samples; gone keys are forgotten") {
  RateTracker rates;
  CHECK_FALSE(rates.update("c", 1'000'000'000, at(100)).has_value());
  auto rate = rates.update("c", 2'000'000'000, at(102));
  REQUIRE(rate.has_value());
  CHECK(*rate == 500'000'000);                              // half a core
  CHECK_FALSE(rates.update("c", 10, at(103)).has_value());  // the counter went back
  rates.sweep();
  rates.sweep();  // "c" was not sampled since the first sweep
  CHECK_FALSE(rates.update("c", 20, at(104)).has_value());
}

TEST_CASE("/stats/summary has the Summary API's shape") {
  const nlohmann::json summary = stats_summary(sample_snapshot());
  const nlohmann::json& node = summary["node"];
  CHECK(node["nodeName"] == "node-a");
  CHECK(node["startTime"] == "2025-12-01T00:00:00Z");
  CHECK(node["cpu"]["time"] == "2025-12-01T01:00:00Z");
  CHECK(node["cpu"]["usageCoreNanoSeconds"] == 1234500000000ULL);
  CHECK(node["cpu"]["usageNanoCores"] == 150000000);
  CHECK(node["memory"]["workingSetBytes"] == 512000);
  CHECK(node["memory"]["usageBytes"] == 819200);
  CHECK(node["memory"]["availableBytes"] == 512000);
  REQUIRE(summary["pods"].size() == 1);
  const nlohmann::json& pod = summary["pods"][0];
  CHECK(pod["podRef"] ==
        nlohmann::json{{"name", "web-1"}, {"namespace", "default"}, {"uid", "uid-1"}});
  CHECK(pod["startTime"] == "2025-12-01T00:46:40Z");
  REQUIRE(pod["containers"].size() == 1);
  const nlohmann::json& c = pod["containers"][0];
  CHECK(c["name"] == "app");
  CHECK(c["cpu"]["usageCoreNanoSeconds"] == 70000000);
  CHECK_FALSE(c["cpu"].contains("usageNanoCores"));  // no earlier sample: no rate
  CHECK(c["memory"]["workingSetBytes"] == 11534336);
  CHECK_FALSE(c["memory"].contains("availableBytes"));
  CHECK(pod["memory"]["usageBytes"] == 12000000);
}

TEST_CASE("/metrics/resource is upstream's Prometheus text") {
  const std::string text = resource_metrics(sample_snapshot());
  const std::string labels = R"({container="app",namespace="default",pod="web-1"})";
  CHECK(
      text ==
      "# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the "
      "container in core-seconds\n"
      "# TYPE container_cpu_usage_seconds_total counter\n"
      "container_cpu_usage_seconds_total" +
          labels +
          " 0.07 1764550800000\n"
          "# HELP container_memory_working_set_bytes [STABLE] Current working set of the container "
          "in bytes\n"
          "# TYPE container_memory_working_set_bytes gauge\n"
          "container_memory_working_set_bytes" +
          labels +
          " 1.1534336e+07 1764550800000\n"
          "# HELP container_start_time_seconds [STABLE] Start time of the container since unix "
          "epoch in seconds\n"
          "# TYPE container_start_time_seconds gauge\n"
          "container_start_time_seconds" +
          labels +
          " 1.764550001e+09 1764550001000\n"
          "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node "
          "in core-seconds\n"
          "# TYPE node_cpu_usage_seconds_total counter\n"
          "node_cpu_usage_seconds_total 1234.5 1764550800250\n"
          "# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes\n"
          "# TYPE node_memory_working_set_bytes gauge\n"
          "node_memory_working_set_bytes 512000 1764550800250\n"
          "# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in "
          "core-seconds\n"
          "# TYPE pod_cpu_usage_seconds_total counter\n"
          "pod_cpu_usage_seconds_total{namespace=\"default\",pod=\"web-1\"} 0.07 1764550800000\n"
          "# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes\n"
          "# TYPE pod_memory_working_set_bytes gauge\n"
          "pod_memory_working_set_bytes{namespace=\"default\",pod=\"web-1\"} 1.1534336e+07 "
          "1764550800000\n"
          "# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container "
          "metrics, 0 otherwise\n"
          "# TYPE resource_scrape_error gauge\n"
          "resource_scrape_error 0\n");
}

TEST_CASE("a collection sums each ready pod's running containers; rates from the second on") {
  ManualClock clock;
  testing::FakeRuntime fake(clock);
  runtime::SandboxConfig pod;
  pod.pod_name = "web-1";
  pod.pod_namespace = "default";
  pod.pod_uid = "uid-1";
  auto sandbox = fake.run_pod_sandbox(pod);
  REQUIRE(sandbox.is_ok());
  for (const char* name : {"app", "sidecar"}) {
    runtime::ContainerConfig c;
    c.name = name;
    c.image = "busybox";
    c.args = {"sh"};
    auto id = fake.create_container(*sandbox, c);
    REQUIRE(id.is_ok());
    REQUIRE(fake.start_container(*id).is_ok());
  }
  const WallTime t0 = std::chrono::system_clock::now();
  fake.set_stats("app", {1'000'000'000, 300, 400, t0});
  fake.set_stats("sidecar", {500'000'000, 30, 40, t0});
  std::string stat = kProcStat;
  StatsCollector collector("node-a", fake, [&](const std::string& path) -> Result<std::string> {
    return path == "/proc/stat" ? stat : std::string(kMeminfo);
  });
  auto first = collector.collect();
  REQUIRE(first.is_ok());
  CHECK(first->node_name == "node-a");
  CHECK(first->node.memory_usage_bytes == 800 * 1024);
  CHECK(first->node.memory_working_set_bytes == 500 * 1024);
  CHECK(*first->node.memory_available_bytes == 500 * 1024);
  CHECK_FALSE(first->node.cpu_usage_nano_cores.has_value());
  REQUIRE(first->pods.size() == 1);
  const PodSample& p = first->pods[0];
  CHECK(p.name == "web-1");
  CHECK(p.uid == "uid-1");
  REQUIRE(p.containers.size() == 2);
  CHECK(p.usage.cpu_usage_core_nanoseconds == 1'500'000'000);
  CHECK(p.usage.memory_working_set_bytes == 330);
  CHECK(p.usage.memory_usage_bytes == 440);
  CHECK_FALSE(first->scrape_error);

  fake.set_stats("app", {3'000'000'000, 300, 400, t0 + 4s});
  auto second = collector.collect();
  REQUIRE(second.is_ok());
  const ContainerSample& app = second->pods[0].containers[0].name == "app"
                                   ? second->pods[0].containers[0]
                                   : second->pods[0].containers[1];
  REQUIRE(app.usage.cpu_usage_nano_cores.has_value());
  CHECK(*app.usage.cpu_usage_nano_cores == 500'000'000);

  // Served by the kubelet API.
  KubeletApiSources sources;
  sources.stats = [&] { return collector.collect(); };
  KubeletApi api(sources);
  http::Request request;
  request.method = "GET";
  request.path = "/stats/summary";
  http::Response summary = api.handle(request);
  CHECK(summary.status == 200);
  CHECK(nlohmann::json::parse(summary.body)["pods"][0]["podRef"]["name"] == "web-1");
  request.path = "/metrics/resource";
  http::Response metrics = api.handle(request);
  CHECK(metrics.status == 200);
  CHECK(metrics.body.find("pod_cpu_usage_seconds_total{namespace=\"default\",pod=\"web-1\"}") !=
        std::string::npos);
  KubeletApi without({});
  CHECK(without.handle(request).status == 503);
}

}  // namespace k3c::kubelet

// The eviction manager's pure decisions: signals, thresholds met, pressure conditions over
// time, ranking, messages and local storage limits, table-style over made-up snapshots.
#include "roles/kubelet/eviction/eviction_decision.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr uint64_t kDecisionMi = 1024 * 1024;
constexpr uint64_t kDecisionGi = 1024 * kDecisionMi;

json decision_pod(const std::string& name, json containers, int64_t priority = 0,
                  json volumes = json()) {
  json p = {{"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}},
            {"spec", {{"containers", std::move(containers)}, {"priority", priority}}},
            {"status", {{"phase", "Running"}}}};
  if (!volumes.is_null()) p["spec"]["volumes"] = std::move(volumes);
  return p;
}

json decision_container(const std::string& name, json requests = json::object(),
                        json limits = json::object()) {
  return {{"name", name}, {"resources", {{"requests", requests}, {"limits", limits}}}};
}

PodUsage memory_use(const std::string& decision_container, uint64_t bytes) {
  PodUsage u;
  u.containers.push_back({decision_container, bytes, 0, 0});
  return u;
}

std::vector<Threshold> hard(const char* text) {
  EvictionSettings s;
  s.hard = *parse_threshold_list(text);
  return *eviction_thresholds(s);
}

NodeStats node_with_memory(uint64_t capacity, uint64_t available) {
  NodeStats s;
  s.memory_capacity_bytes = capacity;
  s.memory_available_bytes = available;
  return s;
}

TEST_CASE("signals are observed from the snapshot") {
  NodeStats s = node_with_memory(8 * kDecisionGi, 6 * kDecisionGi);
  s.nodefs = FsStats{100 * kDecisionGi, 30 * kDecisionGi, 1000, 900};
  s.imagefs = s.nodefs;
  s.max_pids = 32768;
  s.processes = 300;
  const Observations o = observe(s);
  CHECK(o.at(Signal::kMemoryAvailable).available == int64_t(6 * kDecisionGi));
  CHECK(o.at(Signal::kNodeFsAvailable).capacity == int64_t(100 * kDecisionGi));
  CHECK(o.at(Signal::kNodeFsInodesFree).available == 900);
  CHECK(o.at(Signal::kImageFsAvailable).available == int64_t(30 * kDecisionGi));
  CHECK(o.at(Signal::kPidAvailable).available == 32768 - 300);
  // What could not be read is not observed.
  CHECK(observe(NodeStats{}).empty());
}

TEST_CASE("thresholds are met below their quantity; minimum reclaim keeps them met") {
  auto thresholds = hard("memory.available<100Mi,nodefs.available<10%");
  thresholds[0].min_reclaim = ThresholdValue{api::Quantity::parse("50Mi"), 0};
  NodeStats s = node_with_memory(8 * kDecisionGi, 120 * kDecisionMi);
  s.nodefs = FsStats{100 * kDecisionGi, 9 * kDecisionGi, 0, 0};
  auto met = thresholds_met(thresholds, observe(s), false);
  REQUIRE(met.size() == 1);
  CHECK(met[0].signal == Signal::kNodeFsAvailable);
  // 120Mi free is less than 100Mi + 50Mi: still met while reclaiming.
  CHECK(thresholds_met(thresholds, observe(s), true).size() == 2);
  s.memory_available_bytes = 100 * kDecisionMi;  // not less than the threshold
  CHECK(thresholds_met(thresholds, observe(s), false).size() == 1);
}

TEST_CASE("pressure conditions: grace periods and the transition period") {
  EvictionSettings settings;
  settings.hard = *parse_threshold_list("memory.available<100Mi");
  settings.soft = *parse_threshold_list("nodefs.available<20%");
  settings.soft_grace_period = *parse_grace_period_list("nodefs.available=1m");
  const auto thresholds = *eviction_thresholds(settings);
  const Clock::TimePoint t0{};
  NodeStats s = node_with_memory(8 * kDecisionGi, 50 * kDecisionMi);
  s.nodefs = FsStats{100 * kDecisionGi, 15 * kDecisionGi, 0, 0};

  PressureStep step = evaluate_pressure(thresholds, {}, observe(s), t0, 5min);
  CHECK(step.conditions == std::set<std::string>{"MemoryPressure", "DiskPressure"});
  // The soft threshold waits out its grace period; the hard one is acted on at once.
  REQUIRE(step.act_on.size() == 1);
  CHECK(step.act_on[0].signal == Signal::kMemoryAvailable);

  step = evaluate_pressure(thresholds, step.state, observe(s), t0 + 61s, 5min);
  CHECK(step.act_on.size() == 2);
  CHECK(threshold_to_reclaim(step.act_on)->signal == Signal::kMemoryAvailable);

  // Relieved: the conditions stay True for the transition period, nothing is acted on.
  s.memory_available_bytes = 4 * kDecisionGi;
  s.nodefs->available_bytes = 50 * kDecisionGi;
  step = evaluate_pressure(thresholds, step.state, observe(s), t0 + 2min, 5min);
  CHECK(step.act_on.empty());
  CHECK(step.conditions.size() == 2);
  step = evaluate_pressure(thresholds, step.state, observe(s), t0 + 61s + 5min, 5min);
  CHECK(step.conditions.empty());
  CHECK_FALSE(threshold_to_reclaim(step.act_on));
}

TEST_CASE("memory ranking: over requests first, then priority, then usage above requests") {
  const std::vector<json> pods = {
      decision_pod("guaranteed", json::array({decision_container("c", {{"memory", "1Gi"}})})),  // 0
      decision_pod("hog", json::array({decision_container("c")})),                              // 1
      decision_pod("important-hog", json::array({decision_container("c")}), 1000),              // 2
      decision_pod("small", json::array({decision_container("c")})),                            // 3
      decision_pod("no-stats", json::array({decision_container("c")})),                         // 4
  };
  NodeStats s = node_with_memory(8 * kDecisionGi, 50 * kDecisionMi);
  s.pods["uid-guaranteed"] = memory_use("c", 900 * kDecisionMi);  // below its request
  s.pods["uid-hog"] = memory_use("c", 2 * kDecisionGi);
  s.pods["uid-important-hog"] = memory_use("c", 3 * kDecisionGi);
  s.pods["uid-small"] = memory_use("c", 10 * kDecisionMi);
  const auto order = rank_for_eviction(pods, s, Signal::kMemoryAvailable);
  CHECK(order == std::vector<size_t>{4, 1, 3, 2, 0});
}

TEST_CASE("disk ranking counts the writable layer, logs and emptyDir; pids rank by priority") {
  const std::vector<json> pods = {
      decision_pod("writer", json::array({decision_container("c")})),
      decision_pod("requested",
                   json::array({decision_container("c", {{"ephemeral-storage", "10Gi"}})})),
      decision_pod("volume", json::array({decision_container("c")})),
  };
  NodeStats s;
  s.pods["uid-writer"].containers.push_back({"c", 0, 1 * kDecisionGi, 10 * kDecisionMi});
  s.pods["uid-requested"].containers.push_back({"c", 0, 5 * kDecisionGi, 0});
  s.pods["uid-volume"].containers.push_back({"c", 0, 0, 0});
  s.pods["uid-volume"].volume_bytes["cache"] = 2 * kDecisionGi;
  CHECK(rank_for_eviction(pods, s, Signal::kNodeFsAvailable) == std::vector<size_t>{2, 0, 1});
  // With a dedicated imagefs, imagefs pressure counts only the writable layers.
  s.dedicated_imagefs = true;
  CHECK(rank_for_eviction(pods, s, Signal::kImageFsAvailable) == std::vector<size_t>{0, 2, 1});

  const std::vector<json> pid_pods = {
      decision_pod("many", json::array({decision_container("c")}), 10),
      decision_pod("few", json::array({decision_container("c")})),
      decision_pod("more", json::array({decision_container("c")}))};
  NodeStats p;
  p.pods["uid-many"].processes = 500;
  p.pods["uid-few"].processes = 5;
  p.pods["uid-more"].processes = 50;
  CHECK(rank_for_eviction(pid_pods, p, Signal::kPidAvailable) == std::vector<size_t>{2, 1, 0});
}

TEST_CASE("the eviction message is upstream's") {
  auto thresholds = hard("memory.available<100Mi");
  NodeStats s = node_with_memory(8 * kDecisionGi, 80 * kDecisionMi);
  const json p = decision_pod(
      "x",
      json::array({decision_container("x"), decision_container("quiet", {{"memory", "64Mi"}})}));
  s.pods["uid-x"] = memory_use("x", 200 * kDecisionMi);
  s.pods["uid-x"].containers.push_back({"quiet", 10 * kDecisionMi, 0, 0});
  auto victim = choose_pod_to_evict({p}, s, thresholds[0], thresholds, observe(s), 0);
  REQUIRE(victim);
  CHECK(victim->message ==
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. "
        "Container x was using 200Mi, request is 0, has larger consumption of memory. ");
  CHECK(victim->disruption_condition);
  CHECK(victim->grace_period_seconds == 0);

  // Disk, by percentage: the quantity is the share of the capacity.
  auto disk = hard("nodefs.available<10%");
  NodeStats d;
  d.nodefs = FsStats{10 * kDecisionGi, 512 * kDecisionMi, 0, 0};
  d.pods["uid-x"].containers.push_back({"x", 0, 300 * kDecisionMi, 20 * kDecisionMi});
  CHECK(eviction_message(p, &d.pods["uid-x"], "ephemeral-storage", disk, observe(d)) ==
        "The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available: "
        "512Mi. Container x was using 320Mi, request is 0, has larger consumption of "
        "ephemeral-storage. ");
  // PIDs: no container figures; counts print as plain numbers.
  auto pids = hard("pid.available<1000");
  NodeStats n;
  n.max_pids = 4000;
  n.processes = 3500;
  CHECK(eviction_message(p, nullptr, "pids", pids, observe(n)) ==
        "The node was low on resource: pids. Threshold quantity: 1k, available: 500. ");
}

TEST_CASE("soft evictions get min(max-pod-grace-period, the pod's); critical pods are spared") {
  EvictionSettings settings;
  settings.hard.emplace();
  settings.soft = *parse_threshold_list("memory.available<1Gi");
  settings.soft_grace_period = *parse_grace_period_list("memory.available=30s");
  const Threshold soft = (*eviction_thresholds(settings))[0];
  NodeStats s = node_with_memory(8 * kDecisionGi, 500 * kDecisionMi);
  json p = decision_pod("p", json::array({decision_container("c")}));
  p["spec"]["terminationGracePeriodSeconds"] = 45;
  s.pods["uid-p"] = memory_use("c", 1 * kDecisionGi);
  CHECK(choose_pod_to_evict({p}, s, soft, {soft}, observe(s), 20)->grace_period_seconds == 20);
  CHECK(choose_pod_to_evict({p}, s, soft, {soft}, observe(s), 60)->grace_period_seconds == 45);
  CHECK(choose_pod_to_evict({p}, s, soft, {soft}, observe(s), -1)->grace_period_seconds == 45);

  json mirror = p;
  mirror["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "abc";
  json critical = decision_pod("critical", json::array({decision_container("c")}), 2'000'000'000);
  CHECK(is_critical_pod(mirror));
  CHECK(is_critical_pod(critical));
  CHECK_FALSE(is_critical_pod(p));
  CHECK_FALSE(choose_pod_to_evict({mirror, critical}, s, soft, {soft}, observe(s), 0));
}

TEST_CASE("local storage limits: emptyDir sizeLimit, the pod's total, a container's limit") {
  struct Case {
    const char* what;
    json pod;
    PodUsage usage;
    std::optional<std::string> message;
  };
  PodUsage four_mi;
  four_mi.containers.push_back({"w", 0, 0, 0});
  four_mi.volume_bytes["cache"] = 4 * kDecisionMi;
  PodUsage writer;
  writer.containers.push_back({"w", 0, 3 * kDecisionMi, 1 * kDecisionMi});
  const json limited_volume =
      json::array({{{"name", "cache"}, {"emptyDir", {{"sizeLimit", "1Mi"}}}}});
  const json unlimited_volume = json::array({{{"name", "cache"}, {"emptyDir", json::object()}}});
  const Case cases[] = {
      {"an emptyDir over its sizeLimit",
       decision_pod("a", json::array({decision_container("w")}), 0, limited_volume), four_mi,
       "Usage of EmptyDir volume \"cache\" exceeds the limit \"1Mi\". "},
      {"an emptyDir without a limit",
       decision_pod("b", json::array({decision_container("w")}), 0, unlimited_volume), four_mi,
       std::nullopt},
      {"the pod's summed limits",
       decision_pod("c",
                    json::array({decision_container("w", {}, {{"ephemeral-storage", "2Mi"}}),
                                 decision_container("v", {}, {{"ephemeral-storage", "1Mi"}})}),
                    0, unlimited_volume),
       four_mi, "Pod ephemeral local storage usage exceeds the total limit of containers 3Mi. "},
      {"a container over its own limit",
       decision_pod("d",
                    json::array({decision_container("w", {}, {{"ephemeral-storage", "2Mi"}}),
                                 decision_container("v", {}, {{"ephemeral-storage", "10Mi"}})})),
       writer, "Container w exceeded its local ephemeral storage limit \"2Mi\". "},
      {"within limits",
       decision_pod("e",
                    json::array({decision_container("w", {}, {{"ephemeral-storage", "5Mi"}})})),
       writer, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(local_storage_violation(c.pod, c.usage, false) == c.message);
  }
  NodeStats s;
  s.pods["uid-a"] = four_mi;
  auto evictions = local_storage_evictions({cases[0].pod, cases[1].pod}, s);
  REQUIRE(evictions.size() == 1);
  CHECK(evictions[0].pod["metadata"]["name"] == "a");
  CHECK_FALSE(evictions[0].disruption_condition);
  CHECK(evictions[0].grace_period_seconds == 0);
}

TEST_CASE("admission under pressure, as upstream's") {
  const json best_effort = decision_pod("be", json::array({decision_container("c")}));
  const json burstable =
      decision_pod("bu", json::array({decision_container("c", {{"memory", "64Mi"}})}));
  json tolerant = best_effort;
  tolerant["spec"]["tolerations"] = json::array({{{"key", "node.kubernetes.io/memory-pressure"},
                                                  {"operator", "Exists"},
                                                  {"effect", "NoSchedule"}}});
  const json critical = decision_pod("cr", json::array({decision_container("c")}), 2'000'000'000);
  using Set = std::set<std::string>;
  struct Case {
    const char* what;
    const json& pod;
    Set conditions;
    std::optional<std::string> message;
  };
  const Case cases[] = {
      {"no pressure", best_effort, {}, std::nullopt},
      {"BestEffort under memory pressure",
       best_effort,
       {"MemoryPressure"},
       "The node had condition: [MemoryPressure]. "},
      {"Burstable under memory pressure", burstable, {"MemoryPressure"}, std::nullopt},
      {"tolerating the memory-pressure taint", tolerant, {"MemoryPressure"}, std::nullopt},
      {"any pod under disk pressure",
       burstable,
       {"DiskPressure"},
       "The node had condition: [DiskPressure]. "},
      {"memory and pid pressure",
       burstable,
       {"PIDPressure", "MemoryPressure"},
       "The node had condition: [MemoryPressure PIDPressure]. "},
      {"a critical pod", critical, {"DiskPressure"}, std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CHECK(admission_rejection(c.pod, c.conditions) == c.message);
  }
}

}  // namespace
}  // namespace k3c::kubelet

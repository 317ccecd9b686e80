// The eviction manager over a stats source whose figures the test sets and hooks that record:
// pressure conditions, one pod per pass, disk reclaimed through images first, local storage
// limits ahead of node pressure.
#include "roles/kubelet/eviction/eviction_manager.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr uint64_t kManagerMi = 1024 * 1024;
constexpr uint64_t kManagerGi = 1024 * kManagerMi;

class FakeStats final : public EvictionStatsSource {
 public:
  Result<NodeStats> collect() override {
    ++reads;
    if (fail) return error(Code::kInternal, "no stats");
    return stats;
  }
  NodeStats stats;
  bool fail = false;
  int reads = 0;
};

json manager_pod(const std::string& name, json volumes = json::array()) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}},
          {"spec", {{"containers", json::array({{{"name", "c"}}})}, {"volumes", volumes}}},
          {"status", {{"phase", "Running"}}}};
}

struct EvictionHarness {
  ManualClock clock;
  FakeStats stats;
  std::vector<json> pods;
  std::vector<Eviction> evicted;
  std::vector<std::string> warnings;
  int reclaims = 0;
  std::function<void()> on_reclaim;
  std::unique_ptr<EvictionManager> manager;

  explicit EvictionHarness(const char* hard = "memory.available<100Mi,nodefs.available<10%") {
    EvictionSettings settings;
    settings.hard = *parse_threshold_list(hard);
    EvictionHooks hooks;
    hooks.pods = [this] { return pods; };
    hooks.evict = [this](const Eviction& e) {
      evicted.push_back(e);
      // What the pod manager's syncs then report.
      for (json& p : pods)
        if (p["metadata"]["uid"] == e.pod["metadata"]["uid"]) p["status"]["phase"] = "Failed";
    };
    hooks.reclaim_disk = [this] {
      ++reclaims;
      if (on_reclaim) on_reclaim();
    };
    hooks.warn = [this](const std::string& reason, const std::string& message) {
      warnings.push_back(reason + ": " + message);
    };
    manager = std::make_unique<EvictionManager>(
        EvictionManagerConfig{*eviction_thresholds(settings), 5min, 0}, stats, std::move(hooks),
        clock);
    stats.stats.memory_capacity_bytes = 8 * kManagerGi;
    stats.stats.memory_available_bytes = 4 * kManagerGi;
    stats.stats.nodefs = FsStats{100 * kManagerGi, 50 * kManagerGi, 0, 0};
    stats.stats.imagefs = stats.stats.nodefs;
  }
  void use_memory(const std::string& name, uint64_t bytes) {
    stats.stats.pods["uid-" + name].containers = {{"c", bytes, 0, 0}};
  }
};

TEST_CASE("memory pressure: the condition, an event, one pod evicted per pass") {
  EvictionHarness h;
  h.pods = {manager_pod("small"), manager_pod("big")};
  h.use_memory("small", 10 * kManagerMi);
  h.use_memory("big", 2 * kManagerGi);
  CHECK(h.manager->synchronize().empty());
  CHECK(h.manager->pressure() == NodePressure{});

  h.stats.stats.memory_available_bytes = 80 * kManagerMi;
  CHECK(h.manager->synchronize() == std::vector<std::string>{"uid-big"});
  CHECK(h.manager->pressure() == NodePressure{true, false, false});
  CHECK(h.manager->admit(manager_pod("new")) == "The node had condition: [MemoryPressure]. ");
  CHECK(h.warnings ==
        std::vector<std::string>{"EvictionThresholdMet: Attempting to reclaim memory"});
  REQUIRE(h.evicted.size() == 1);
  CHECK(h.evicted[0].message ==
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi. "
        "Container c was using 2Gi, request is 0, has larger consumption of memory. ");
  CHECK(h.evicted[0].disruption_condition);
  CHECK(h.reclaims == 0);  // images free no memory

  // Still short next pass: the next pod goes; the Failed one is not evicted again.
  CHECK(h.manager->synchronize() == std::vector<std::string>{"uid-small"});
  CHECK(h.manager->synchronize().empty());

  // Relieved: the condition holds for the transition period, then clears.
  h.stats.stats.memory_available_bytes = 4 * kManagerGi;
  h.clock.advance(1min);
  h.manager->synchronize();
  CHECK(h.manager->pressure().memory);
  h.clock.advance(5min);
  h.manager->synchronize();
  CHECK_FALSE(h.manager->pressure().memory);
  CHECK_FALSE(h.manager->admit(manager_pod("new")));
}

TEST_CASE("disk pressure frees unused images before it evicts a pod") {
  EvictionHarness h;
  h.pods = {manager_pod("writer")};
  h.stats.stats.pods["uid-writer"].containers = {{"c", 0, 5 * kManagerGi, 0}};
  h.stats.stats.nodefs->available_bytes = 5 * kManagerGi;
  h.stats.stats.imagefs = h.stats.stats.nodefs;
  h.on_reclaim = [&] { h.stats.stats.nodefs->available_bytes = 20 * kManagerGi; };
  CHECK(h.manager->synchronize().empty());
  CHECK(h.reclaims == 1);
  CHECK(h.manager->pressure().disk);
  CHECK(h.warnings.back() == "EvictionThresholdMet: Attempting to reclaim ephemeral-storage");

  // Images are not enough: a pod goes.
  h.stats.stats.nodefs->available_bytes = 5 * kManagerGi;
  h.on_reclaim = nullptr;
  CHECK(h.manager->synchronize() == std::vector<std::string>{"uid-writer"});
  CHECK(h.reclaims == 2);
  CHECK(h.evicted[0].message.starts_with(
      "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 5Gi. "
      "Container c was using 5Gi, request is 0"));
}

TEST_CASE("a pod over its emptyDir sizeLimit is evicted without node pressure") {
  EvictionHarness h;
  h.pods = {manager_pod("cache",
                        json::array({{{"name", "scratch"}, {"emptyDir", {{"sizeLimit", "1Mi"}}}}})),
            manager_pod("other")};
  h.stats.stats.pods["uid-cache"].volume_bytes["scratch"] = 4 * kManagerMi;
  CHECK(h.manager->synchronize() == std::vector<std::string>{"uid-cache"});
  REQUIRE(h.evicted.size() == 1);
  CHECK(h.evicted[0].message == "Usage of EmptyDir volume \"scratch\" exceeds the limit \"1Mi\". ");
  CHECK_FALSE(h.evicted[0].disruption_condition);
  CHECK(h.evicted[0].grace_period_seconds == 0);
  CHECK(h.manager->pressure() == NodePressure{});
  CHECK(h.warnings.empty());
}

TEST_CASE("unreadable stats change nothing") {
  EvictionHarness h;
  h.pods = {manager_pod("p")};
  h.stats.fail = true;
  CHECK(h.manager->synchronize().empty());
  CHECK(h.evicted.empty());
}

TEST_CASE("pid pressure") {
  EvictionHarness h("pid.available<10%");
  h.pods = {manager_pod("forky")};
  h.stats.stats.max_pids = 1000;
  h.stats.stats.processes = 950;
  h.stats.stats.pods["uid-forky"].processes = 800;
  CHECK(h.manager->synchronize() == std::vector<std::string>{"uid-forky"});
  CHECK(h.manager->pressure() == NodePressure{false, false, true});
  CHECK(h.evicted[0].message ==
        "The node was low on resource: pids. Threshold quantity: 100, available: 50. ");
}

}  // namespace
}  // namespace k3c::kubelet

#include "roles/controllers/disruption/budget_math.h"

#include <catch2/catch.hpp>

#include "core/ids.h"

namespace k3c::controllers {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json budget_pod(const std::string& name, bool ready, const std::string& owner_uid = "rs-1") {
  json p = {
      {"metadata", {{"name", name}, {"namespace", "ns"}}},
      {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  if (!owner_uid.empty()) {
    p["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", "ReplicaSet"},
                                         {"name", "web-" + owner_uid},
                                         {"uid", owner_uid},
                                         {"controller", true}}};
  }
  return p;
}

std::vector<const json*> views(const std::vector<json>& pods) {
  std::vector<const json*> v;
  for (const auto& p : pods) v.push_back(&p);
  return v;
}

// Every ReplicaSet asks for 5 replicas, except rs-2 (3); "lost" is unknown.
ScaleFinder scales() {
  return [](const json& ref, const std::string&) -> std::optional<ControllerScale> {
    std::string uid = ref.value("uid", "");
    if (uid == "lost") return std::nullopt;
    return ControllerScale{uid, uid == "rs-2" ? 3 : 5};
  };
}

json budget(const json& spec) {
  return {{"metadata", {{"name", "b"}, {"namespace", "ns"}, {"generation", 2}}}, {"spec", spec}};
}

TEST_CASE("A budget expects pods from minAvailable or maxUnavailable as upstream") {
  std::vector<json> pods = {budget_pod("a", true), budget_pod("b", true),
                            budget_pod("c", false, "rs-2")};
  struct Row {
    json spec;
    int64_t expected, desired;
  };
  for (const Row& row : std::vector<Row>{
           {{{"minAvailable", 2}}, 3, 2},        // a number: the pods there are
           {{{"minAvailable", "50%"}}, 8, 4},    // a percentage: the controllers' 5 + 3
           {{{"minAvailable", "30%"}}, 8, 3},    // rounded up (2.4)
           {{{"maxUnavailable", 1}}, 8, 7},      // of the controllers' scale
           {{{"maxUnavailable", "25%"}}, 8, 6},  // 2 unavailable
           {{{"maxUnavailable", 20}}, 8, 0},     // never below zero
       }) {
    INFO(row.spec.dump());
    auto c = count_budget(budget(row.spec), views(pods), scales());
    REQUIRE(c.is_ok());
    CHECK(c->expected == row.expected);
    CHECK(c->desired_healthy == row.desired);
  }
}

TEST_CASE("Percentages and maxUnavailable need every pod's controller") {
  std::vector<json> orphan = {budget_pod("a", true), budget_pod("loner", true, "")};
  auto c = count_budget(budget({{"maxUnavailable", 1}}), views(orphan), scales());
  REQUIRE_FALSE(c.is_ok());
  CHECK(c.status().message() == "found no controller ref for pod \"loner\"");
  // A whole-number minAvailable counts pods, controller or not.
  CHECK(count_budget(budget({{"minAvailable", 1}}), views(orphan), scales()).is_ok());

  std::vector<json> lost = {budget_pod("x", true, "lost")};
  c = count_budget(budget({{"minAvailable", "10%"}}), views(lost), scales());
  REQUIRE_FALSE(c.is_ok());
  CHECK(c.status().message() == "found no controllers for pod \"x\"");
}

TEST_CASE("Healthy pods are Ready, not being deleted and not recently evicted") {
  auto now = *parse_rfc3339("2026-11-30T10:00:00Z");
  std::vector<json> pods = {budget_pod("ready", true), budget_pod("unready", false),
                            budget_pod("leaving", true), budget_pod("evicted", true),
                            budget_pod("overdue", true)};
  pods[2]["metadata"]["deletionTimestamp"] = "2026-11-30T09:59:00Z";
  json pdb = budget({{"minAvailable", 1}});
  pdb["status"]["disruptedPods"] = {{"evicted", "2026-11-30T09:59:00Z"},  // 1 min ago
                                    {"overdue", "2026-11-30T09:57:00Z"},  // 3 min ago
                                    {"gone", "2026-11-30T09:59:30Z"}};    // no such pod
  BudgetHealth h = count_health(pdb, views(pods), now);
  CHECK(h.current_healthy == 2);  // ready and overdue (its eviction timed out)
  CHECK(h.disrupted_pods == json({{"evicted", "2026-11-30T09:59:00Z"}}));
  CHECK(h.not_deleted == std::vector<std::string>{"overdue"});
  REQUIRE(h.recheck);
  CHECK(*h.recheck == now + 1min);
}

TEST_CASE("The status allows what is healthy beyond the desired count") {
  json pdb = budget({{"minAvailable", 2}});
  BudgetHealth h;
  h.current_healthy = 3;
  json s = budget_status(pdb, {3, 2}, h, "2026-11-30T10:00:00Z");
  CHECK(s["disruptionsAllowed"] == 1);
  CHECK(s["currentHealthy"] == 3);
  CHECK(s["desiredHealthy"] == 2);
  CHECK(s["expectedPods"] == 3);
  CHECK(s["observedGeneration"] == 2);
  CHECK_FALSE(s.contains("disruptedPods"));
  REQUIRE(s["conditions"].size() == 1);
  CHECK(s["conditions"][0] == json({{"type", "DisruptionAllowed"},
                                    {"status", "True"},
                                    {"reason", "SufficientPods"},
                                    {"message", ""},
                                    {"lastTransitionTime", "2026-11-30T10:00:00Z"},
                                    {"observedGeneration", 2}}));

  // Fewer healthy than desired, or nothing expected: no disruption.
  pdb["status"] = s;
  h.current_healthy = 2;
  s = budget_status(pdb, {3, 2}, h, "2026-11-30T10:05:00Z");
  CHECK(s["disruptionsAllowed"] == 0);
  CHECK(s["conditions"][0]["reason"] == "InsufficientPods");
  CHECK(s["conditions"][0]["lastTransitionTime"] == "2026-11-30T10:05:00Z");
  h.current_healthy = 5;
  CHECK(budget_status(pdb, {0, 0}, h, "t")["disruptionsAllowed"] == 0);

  json failed = failed_budget_status(pdb, "found no controllers for pod \"x\"", "t2");
  CHECK(failed["disruptionsAllowed"] == 0);
  CHECK(failed["conditions"][0]["reason"] == "SyncFailed");
  CHECK(failed["conditions"][0]["message"] == "found no controllers for pod \"x\"");
}

}  // namespace
}  // namespace k3c::controllers

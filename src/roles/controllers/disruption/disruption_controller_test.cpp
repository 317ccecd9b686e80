// DisruptionController's reconcile against the fake API: the status it writes.
#include "roles/controllers/disruption/disruption_controller.h"

#include <catch2/catch.hpp>

#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

using testing::ControllerHarness;

const char* kDisruptionPods = "/api/v1/namespaces/default/pods";
const char* kBudget = "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web";

json disruption_pod(const std::string& name, bool ready, bool owned = true) {
  json p = {
      {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
      {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  if (owned) {
    p["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", "ReplicaSet"},
                                         {"name", "web-1"},
                                         {"uid", "uid-web-1"},
                                         {"controller", true}}};
  }
  return p;
}

void seed_budget(ControllerHarness& h) {
  h.api.seed(
      "/apis/apps/v1/namespaces/default/replicasets",
      {{"metadata", {{"name", "web-1"}, {"namespace", "default"}}}, {"spec", {{"replicas", 3}}}});
  h.api.seed(
      "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
      {{"metadata", {{"name", "web"}, {"namespace", "default"}, {"generation", 1}}},
       {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}});
}

json written_status(const ControllerHarness& h) {
  json last;
  for (const auto& a : h.api.actions()) {
    if (a.verb == "PUT" && a.path == std::string(kBudget) + "/status") last = a.body["status"];
  }
  return last;
}

TEST_CASE("the disruption controller writes what a budget allows") {
  ControllerHarness h;
  seed_budget(h);
  for (int i = 0; i < 3; ++i)
    h.api.seed(kDisruptionPods, disruption_pod("web-" + std::to_string(i), i != 2));
  DisruptionController controller(h.ctx);
  auto running = h.start(controller);
  REQUIRE(running);
  REQUIRE(ControllerHarness::eventually([&] { return !written_status(h).is_null(); }));
  json status = written_status(h);
  CHECK(status["expectedPods"] == 3);  // the ReplicaSet's replicas
  CHECK(status["desiredHealthy"] == 2);
  CHECK(status["currentHealthy"] == 2);
  CHECK(status["disruptionsAllowed"] == 0);
  CHECK(status["observedGeneration"] == 1);
  CHECK(status["conditions"][0]["reason"] == "InsufficientPods");
}

TEST_CASE("the disruption controller fails safe on a pod without a controller") {
  ControllerHarness h;
  seed_budget(h);
  h.api.seed(kDisruptionPods, disruption_pod("web-0", true));
  h.api.seed(kDisruptionPods, disruption_pod("stray", true, false));
  DisruptionController controller(h.ctx);
  auto running = h.start(controller);
  REQUIRE(running);
  REQUIRE(ControllerHarness::eventually([&] { return !written_status(h).is_null(); }));
  json status = written_status(h);
  CHECK(status["disruptionsAllowed"] == 0);
  CHECK(status["conditions"][0]["reason"] == "SyncFailed");
  CHECK(status["conditions"][0]["message"] == "found no controller ref for pod \"stray\"");
}

}  // namespace
}  // namespace k3c::controllers

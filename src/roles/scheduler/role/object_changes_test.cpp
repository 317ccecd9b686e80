// Which pods the scheduler takes, which changes wake waiting pods, and the PodScheduled patch.
#include "roles/scheduler/role/object_changes.h"

#include <catch2/catch.hpp>

#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using nlohmann::json;
using testing::NodeBuilder;
using testing::PodBuilder;

TEST_CASE("the pods the default scheduler places") {
  json pod = PodBuilder("a").raw();
  CHECK(waits_for_scheduler(pod, "default-scheduler"));
  pod["spec"]["schedulerName"] = "default-scheduler";
  CHECK(waits_for_scheduler(pod, "default-scheduler"));
  pod["spec"]["schedulerName"] = "other";
  CHECK_FALSE(waits_for_scheduler(pod, "default-scheduler"));
  CHECK(waits_for_scheduler(pod, "other"));

  CHECK_FALSE(waits_for_scheduler(PodBuilder("a").node("n1").raw(), "default-scheduler"));
  json deleting = PodBuilder("a").raw();
  deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK_FALSE(waits_for_scheduler(deleting, "default-scheduler"));
  json done = PodBuilder("a").raw();
  done["status"]["phase"] = "Succeeded";
  CHECK_FALSE(waits_for_scheduler(done, "default-scheduler"));
  CHECK(pod_finished(done));
}

TEST_CASE("a pod's spec changed, not only its status") {
  json pod = PodBuilder("a").raw();
  json status_only = pod;
  status_only["status"]["conditions"] = json::array({{{"type", "PodScheduled"}}});
  status_only["metadata"]["resourceVersion"] = "12";
  CHECK_FALSE(pod_spec_changed(pod, status_only));
  json relabelled = pod;
  relabelled["metadata"]["labels"]["x"] = "y";
  CHECK(pod_spec_changed(pod, relabelled));
  json tolerating = pod;
  tolerating["spec"]["tolerations"] = json::array({{{"operator", "Exists"}}});
  CHECK(pod_spec_changed(pod, tolerating));
}

TEST_CASE("node changes that matter to scheduling") {
  json node = NodeBuilder("n1").json_();
  json heartbeat = node;
  heartbeat["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-01-01T00:00:10Z";
  heartbeat["metadata"]["resourceVersion"] = "99";
  CHECK_FALSE(node_scheduling_changed(node, heartbeat));
  CHECK(node_scheduling_changed(node, NodeBuilder("n1").label("zone", "a").json_()));
  CHECK(node_scheduling_changed(node, NodeBuilder("n1").taint("k", "v", "NoSchedule").json_()));
  CHECK(node_scheduling_changed(node, NodeBuilder("n1").unschedulable().json_()));
  CHECK(node_scheduling_changed(node, NodeBuilder("n1").allocatable("cpu", "8").json_()));
  json not_ready = node;
  not_ready["status"]["conditions"][0]["status"] = "False";
  CHECK(node_scheduling_changed(node, not_ready));
}

TEST_CASE("the PodScheduled=False patch") {
  json pod = PodBuilder("a").raw();
  auto patch = unschedulable_patch(pod, "0/1 nodes are available: 1 Insufficient cpu.", "",
                                   "2026-01-01T00:00:00Z");
  REQUIRE(patch);
  CHECK(*patch == json::parse(R"({"status":{"conditions":[{"type":"PodScheduled",
      "status":"False","reason":"Unschedulable",
      "message":"0/1 nodes are available: 1 Insufficient cpu.","lastProbeTime":null,
      "lastTransitionTime":"2026-01-01T00:00:00Z"}]}})"));

  // Applied: the same outcome writes nothing again.
  pod["status"] = (*patch)["status"];
  CHECK_FALSE(unschedulable_patch(pod, "0/1 nodes are available: 1 Insufficient cpu.", "",
                                  "2026-01-01T00:05:00Z"));
  // A new message keeps the transition time; a nomination is added.
  auto changed = unschedulable_patch(pod, "0/2 nodes are available: 2 Insufficient cpu.", "n2",
                                     "2026-01-01T00:05:00Z");
  REQUIRE(changed);
  CHECK((*changed)["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-01T00:00:00Z");
  CHECK((*changed)["status"]["nominatedNodeName"] == "n2");
}

}  // namespace
}  // namespace k3c::scheduler

// A hollow node's pod status: Running and Ready with the kubelet's shapes, and stable.
#include "roles/hollow/hollow_pod_status.h"

#include <catch2/catch.hpp>

namespace k3c::hollow {
namespace {

using nlohmann::json;

json pod() {
  return json::parse(R"({
    "metadata": {"name": "web-1", "namespace": "default", "uid": "u-1"},
    "spec": {"nodeName": "hollow-0",
             "initContainers": [{"name": "setup", "image": "busybox"}],
             "containers": [{"name": "web", "image": "nginx:1.27"},
                            {"name": "log", "image": "busybox"}]},
    "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True"}]}
  })");
}

TEST_CASE("a hollow pod is Running and Ready with well-formed container statuses") {
  kubelet::NodeFacts node{"hollow-0", {"172.16.0.1"}, {}};
  const auto started = std::chrono::system_clock::now();
  json status = hollow_pod_status(pod(), "10.42.0.2", started, node, started);
  CHECK(status["phase"] == "Running");
  CHECK(status["podIP"] == "10.42.0.2");
  CHECK(status["podIPs"] == json::array({{{"ip", "10.42.0.2"}}}));
  CHECK(status["hostIP"] == "172.16.0.1");
  CHECK(status.contains("startTime"));
  std::map<std::string, std::string> conditions;
  for (const json& c : status["conditions"]) conditions[c["type"]] = c["status"];
  CHECK(conditions["Ready"] == "True");
  CHECK(conditions["ContainersReady"] == "True");
  CHECK(conditions["Initialized"] == "True");
  CHECK(conditions["PodScheduled"] == "True");
  REQUIRE(status["containerStatuses"].size() == 2);
  for (const json& c : status["containerStatuses"]) {
    CHECK(c["ready"] == true);
    CHECK(c["started"] == true);
    CHECK(c["restartCount"] == 0);
    CHECK(c["state"].contains("running"));
    CHECK(c["containerID"].get<std::string>().size() == std::string("k3c://").size() + 64);
    CHECK(c["imageID"].get<std::string>().rfind("sha256:", 0) == 0);
  }
  CHECK(status["initContainerStatuses"][0]["state"]["terminated"]["exitCode"] == 0);
}

TEST_CASE("the status does not change when computed again later") {
  kubelet::NodeFacts node{"hollow-0", {"172.16.0.1"}, {}};
  const auto started = std::chrono::system_clock::now();
  json p = pod();
  p["status"] = hollow_pod_status(p, "10.42.0.2", started, node, started);
  json again = hollow_pod_status(p, "10.42.0.2", started, node, started + std::chrono::hours(1));
  CHECK(again == p["status"]);
}

TEST_CASE("fake digests are 64 hex digits and stable") {
  CHECK(fake_digest("x").size() == 64);
  CHECK(fake_digest("x") == fake_digest("x"));
  CHECK(fake_digest("x") != fake_digest("y"));
}

}  // namespace
}  // namespace k3c::hollow

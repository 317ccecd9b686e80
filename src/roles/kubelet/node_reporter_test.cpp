// NodeReporter against the fake API (recorded writes, the real in-process client) with a
// made-up machine and a manual clock.
#include "roles/kubelet/node_reporter.h"

#include <catch2/catch.hpp>

#include "client/in_process_client.h"
#include "roles/controllers/testing/fake_api.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

struct FakeProbe final : MachineProbe {
  MachineInfo info;
  MachineInfo probe() const override { return info; }
};

struct FakeImages final : runtime::ImageService {
  std::vector<runtime::ImageSummary> images;
  Result<runtime::ImageSummary> image_status(const std::string&) override {
    return error(Code::kNotFound, "no");
  }
  Result<std::string> pull_image(const std::string&,
                                 const std::optional<runtime::RegistryAuth>&) override {
    return error(Code::kNotImplemented, "no");
  }
  Result<std::vector<runtime::ImageSummary>> list_images() override { return images; }
  Status remove_image(const std::string&) override { return Status::ok(); }
};

struct Fixture {
  Fixture() {
    probe.info.hostname = "edge-box";
    probe.info.cpus = 2;
    probe.info.memory_bytes = 4LL << 30;
    probe.info.ephemeral_storage_bytes = 10LL << 30;
    probe.info.boot_id = "boot-1";
    probe.info.architecture = "amd64";
    id.name = "edge-box";
    id.control_plane = true;
    id.labels = {{"tier", "edge"}};
    id.taints = {{"dedicated", "edge", "NoSchedule"}};
    id.kubelet_version = "v1.32.0+k3c1";
  }
  // The writes since the last call, as "VERB path".
  std::vector<std::string> new_writes() {
    std::vector<std::string> out;
    auto all = api.actions();
    for (size_t i = seen; i < all.size(); ++i) out.push_back(all[i].verb + " " + all[i].path);
    seen = all.size();
    return out;
  }

  controllers::testing::FakeApi api;
  client::InProcessClient client{[this](http::Request& r) { return api.handle(r); },
                                 http::PeerIdentity{"system:node:edge-box", {}, {}, {}}};
  ManualClock clock;
  FakeProbe probe;
  NodeIdentity id;
  KubeletSettings settings;
  size_t seen = 0;
};

TEST_CASE("a new node is created with its status; status writes happen only when due") {
  Fixture f;
  NodeReporter reporter(f.client, f.id, f.probe, nullptr, nullptr, f.settings, f.clock);
  REQUIRE(reporter.register_node().is_ok());
  CHECK(f.new_writes() == std::vector<std::string>{"POST /api/v1/nodes"});
  json node = f.api.object("/api/v1/nodes/edge-box");
  CHECK(node["metadata"]["labels"]["tier"] == "edge");
  CHECK(node["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] == "true");
  CHECK(node["spec"]["taints"][0]["key"] == "dedicated");
  CHECK(node["status"]["nodeInfo"]["bootID"] == "boot-1");

  // Ten seconds on, nothing changed: no write.
  f.clock.advance(10s);
  REQUIRE(reporter.sync_status().is_ok());
  CHECK(f.new_writes().empty());
  // The machine rebooted (new boot id): written at once.
  f.probe.info.boot_id = "boot-2";
  f.clock.advance(10s);
  REQUIRE(reporter.sync_status().is_ok());
  CHECK(f.new_writes() == std::vector<std::string>{"PUT /api/v1/nodes/edge-box/status"});
  CHECK(f.api.object("/api/v1/nodes/edge-box")["status"]["nodeInfo"]["bootID"] == "boot-2");
  // Unchanged but the report frequency passed: written, with a new heartbeat.
  f.clock.advance(f.settings.node_status_report_frequency);
  REQUIRE(reporter.sync_status().is_ok());
  CHECK(f.new_writes() == std::vector<std::string>{"PUT /api/v1/nodes/edge-box/status"});

  // The node is deleted: the status sync says so (the role registers again).
  REQUIRE(client::remove(f.client, client::resources::kNodes, "", "edge-box").is_ok());
  CHECK(reporter.sync_status().code() == Code::kNotFound);
}

TEST_CASE("an existing node gets its labels reconciled, taints untouched, status at once") {
  Fixture f;
  f.api.seed(
      "/api/v1/nodes",
      {{"metadata",
        {{"name", "edge-box"},
         {"labels", {{"kubernetes.io/arch", "arm64"}, {"custom", "kept"}, {"tier", "old"}}}}},
       {"spec", {{"taints", json::array({{{"key", "other"}, {"effect", "NoExecute"}}})}}}});
  NodeReporter reporter(f.client, f.id, f.probe, nullptr, nullptr, f.settings, f.clock);
  REQUIRE(reporter.register_node().is_ok());
  auto actions = f.api.actions();
  REQUIRE(actions.size() == 1);
  CHECK(actions[0].verb == "PATCH");
  CHECK(actions[0].body["metadata"]["labels"]["kubernetes.io/arch"] == "amd64");
  CHECK(actions[0].body["metadata"]["labels"]["tier"] == "edge");
  CHECK_FALSE(actions[0].body["metadata"]["labels"].contains("custom"));
  CHECK_FALSE(actions[0].body.contains("spec"));
  f.new_writes();
  // Its status is written at the first sync, though the clock did not move.
  REQUIRE(reporter.sync_status().is_ok());
  CHECK(f.new_writes() == std::vector<std::string>{"PUT /api/v1/nodes/edge-box/status"});
  json node = f.api.object("/api/v1/nodes/edge-box");
  CHECK(node["metadata"]["labels"]["custom"] == "kept");
  CHECK(node["spec"]["taints"].size() == 1);
  CHECK(node["status"]["conditions"][3]["type"] == "Ready");
}

TEST_CASE("the runtime's images are in the node status; a new image is a change") {
  Fixture f;
  FakeImages images;
  images.images = {{"sha256:1", {"docker.io/library/busybox:latest"}, 2000000, ""}};
  NodeReporter reporter(f.client, f.id, f.probe, &images, nullptr, f.settings, f.clock);
  REQUIRE(reporter.register_node().is_ok());
  CHECK(f.api.object("/api/v1/nodes/edge-box")["status"]["images"] ==
        json::parse(R"([{"names":["docker.io/library/busybox:latest"],"sizeBytes":2000000}])"));
  f.new_writes();
  images.images.push_back({"sha256:2", {"docker.io/library/alpine:3"}, 3000000, ""});
  f.clock.advance(10s);
  REQUIRE(reporter.sync_status().is_ok());
  CHECK(f.new_writes() == std::vector<std::string>{"PUT /api/v1/nodes/edge-box/status"});
  CHECK(f.api.object("/api/v1/nodes/edge-box")["status"]["images"].size() == 2);
}

TEST_CASE("the Lease is created owned by the node, then renewed by update") {
  Fixture f;
  NodeReporter reporter(f.client, f.id, f.probe, nullptr, nullptr, f.settings, f.clock);
  REQUIRE(reporter.register_node().is_ok());
  f.new_writes();
  REQUIRE(reporter.renew_lease().is_ok());
  CHECK(f.new_writes() ==
        std::vector<std::string>{
            "POST /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"});
  const std::string path =
      "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/edge-box";
  json lease = f.api.object(path);
  CHECK(lease["spec"]["holderIdentity"] == "edge-box");
  CHECK(lease["metadata"]["ownerReferences"][0]["uid"] == "uid-edge-box");
  const std::string first = lease["spec"]["renewTime"];
  f.clock.advance(10s);
  REQUIRE(reporter.renew_lease().is_ok());
  CHECK(f.new_writes() == std::vector<std::string>{"PUT " + path});
  CHECK(f.api.object(path)["spec"]["renewTime"] != first);
  // Deleted by someone: created again.
  REQUIRE(
      client::remove(f.client, client::resources::kLeases, "kube-node-lease", "edge-box").is_ok());
  f.new_writes();
  REQUIRE(reporter.renew_lease().is_ok());
  CHECK(f.api.object(path)["spec"]["holderIdentity"] == "edge-box");
}

}  // namespace
}  // namespace k3c::kubelet

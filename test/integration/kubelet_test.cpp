// The kubelet role of `k3c server` (no --disable-agent) driven by the real kubectl 1.27 and
// 1.33: the node registers Ready with its roles, version, labels, taints, capacity and system
// info; its Lease renews; its status is rewritten when due, not on every check; the scheduler
// binds a pod to it (which stays Pending: its image is not there and no registry can be
// reached from the test's network namespace); a restart reconciles labels on the existing node; a
// deleted node comes back.
//
// Each server runs in mount, network and PID namespaces of its own (server_sandbox.h:
// Launch::kInNamespaces), so these tests need root; kubectl runs in the server's network
// namespace through nsenter.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "node_session.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string lower_host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::string out = name;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string skip_reason() {
  std::string why = namespaces_unavailable();
  if (!why.empty()) WARN("integration.kubelet skipped: " << why);
  return why;
}

TEST_CASE("the server's node registers Ready, with roles, version, labels, taints, system info") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  const std::string node = lower_host_name();
  NodeSession s(box, {"--node-label", "tier=edge", "--node-label", "example.com/zone=attic",
                      "--node-taint", "dedicated=edge:PreferNoSchedule", "--node-ip", "10.99.0.5"});
  REQUIRE(eventually([&] { return s.node_ready(node); }));
  const std::string git_version =
      json::parse(s.ok({"get", "--raw", "/version"})).value("gitVersion", "");
  REQUIRE_FALSE(git_version.empty());
  // The node's events are written by their own thread: wait for the last of the first ones.
  REQUIRE(eventually([&] {
    return s.kubectl({"describe", "node", node}).out.find("NodeHasSufficientPID") !=
           std::string::npos;
  }));

  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    KubectlRunner kubectl{box, kubectl_dir() + "/kubectl." + version, {}, s.server.enter_prefix()};
    auto table = lines(kubectl({"get", "nodes"}).out);
    REQUIRE(table.size() == 2);
    CHECK(words(table[0]) == std::vector<std::string>{"NAME", "STATUS", "ROLES", "AGE", "VERSION"});
    auto row = words(table[1]);
    REQUIRE(row.size() == 5);
    CHECK(row[0] == node);
    CHECK(row[1] == "Ready");
    CHECK(row[2] == "control-plane,master");
    CHECK(row[4] == git_version);

    auto wide = words(lines(kubectl({"get", "nodes", "-o", "wide"}).out).at(1));
    REQUIRE(wide.size() >= 10);
    CHECK(wide[5] == "10.99.0.5");             // INTERNAL-IP, from --node-ip
    CHECK(wide.back().starts_with("k3c://"));  // CONTAINER-RUNTIME

    const std::string describe = kubectl({"describe", "node", node}).out;
    CHECK_THAT(describe, Catch::Contains("Roles:              control-plane,master"));
    CHECK_THAT(describe, Catch::Contains("tier=edge") &&
                             Catch::Contains("example.com/zone=attic") &&
                             Catch::Contains("kubernetes.io/hostname=" + node) &&
                             Catch::Contains("kubernetes.io/os=linux"));
    CHECK_THAT(describe, Catch::Contains("Taints:             dedicated=edge:PreferNoSchedule"));
    CHECK_THAT(describe, Catch::Contains("HolderIdentity:  " + node));
    CHECK_THAT(describe,
               Catch::Contains("MemoryPressure   False") &&
                   Catch::Contains("KubeletHasSufficientMemory   kubelet has sufficient memory "
                                   "available") &&
                   Catch::Contains("DiskPressure     False") &&
                   Catch::Contains("KubeletHasNoDiskPressure") &&
                   Catch::Contains("PIDPressure      False") &&
                   Catch::Contains("KubeletHasSufficientPID") &&
                   Catch::Contains("Ready            True") &&
                   Catch::Contains("KubeletReady                 kubelet is posting ready status"));
    CHECK_THAT(describe, Catch::Contains("InternalIP:  10.99.0.5") &&
                             Catch::Contains("Hostname:    " + node));
    CHECK_THAT(
        describe,
        Catch::Contains("cpu:                " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN))) &&
            Catch::Contains("pods:               110") && Catch::Contains("hugepages-2Mi:      0"));
    CHECK_THAT(describe, Catch::Contains("Operating System:           linux") &&
                             Catch::Contains("Container Runtime Version:  k3c://") &&
                             Catch::Contains("Kubelet Version:            " + git_version) &&
                             Catch::Contains("Kube-Proxy Version:         " + git_version));
    CHECK_THAT(describe, Catch::Contains("Starting kubelet.") &&
                             Catch::Contains("status is now: NodeHasSufficientMemory"));
  }

  // Allocatable is capacity less upstream's default hard eviction threshold (100Mi).
  json n = s.object({"node", node});
  const std::string boot_id = n["status"]["nodeInfo"].value("bootID", "");
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string host_boot_id;
  boot >> host_boot_id;
  CHECK(boot_id == host_boot_id);
  const std::string capacity = n["status"]["capacity"].value("memory", "");
  const std::string allocatable = n["status"]["allocatable"].value("memory", "");
  REQUIRE(capacity.ends_with("Ki"));
  REQUIRE(allocatable.ends_with("Ki"));
  CHECK(std::stoll(capacity) - std::stoll(allocatable) == 100 * 1024);
  CHECK(n["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] == 10250);
  CHECK(n["spec"].value("podCIDR", "") == "10.42.0.0/24");  // node IPAM's, not the kubelet's
}

TEST_CASE("the Lease renews every 10 s; the status is rewritten only when due") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  NodeSession s(box, {"--node-name", "lease-node"}, "1.27");
  REQUIRE(eventually([&] { return s.node_ready("lease-node"); }));
  const json node = s.object({"node", "lease-node"});
  json lease;
  REQUIRE(eventually([&] {
    lease = s.object({"lease", "-n", "kube-node-lease", "lease-node"});
    return lease.is_object();
  }));
  CHECK(lease["spec"]["holderIdentity"] == "lease-node");
  CHECK(lease["spec"]["leaseDurationSeconds"] == 40);
  CHECK(lease["metadata"]["ownerReferences"] ==
        json::parse(R"([{"apiVersion":"v1","kind":"Node","name":"lease-node","uid":")" +
                    node["metadata"].value("uid", "") + R"("}])"));
  const std::string renewed = lease["spec"].value("renewTime", "");
  const std::string heartbeat =
      s.jsonpath("node/lease-node", "{.status.conditions[?(@.type==\"Ready\")].lastHeartbeatTime}");
  auto renew_time = [&] {
    json now = s.object({"lease", "-n", "kube-node-lease", "lease-node"});
    return now.is_object() ? now["spec"].value("renewTime", "") : std::string();
  };
  REQUIRE(eventually([&] { return !renew_time().empty() && renew_time() != renewed; }, 15s));
  // Nothing changed and the report frequency (5 min) has not passed: no status write, so the
  // heartbeat stays (the Lease is the node's heartbeat).
  CHECK(s.jsonpath("node/lease-node",
                   "{.status.conditions[?(@.type==\"Ready\")].lastHeartbeatTime}") == heartbeat);
}

TEST_CASE("--kubelet-arg node-status-report-frequency makes the status heartbeat move") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  NodeSession s(box,
                {"--node-name", "busy-node", "--kubelet-arg", "node-status-update-frequency=1s",
                 "--kubelet-arg", "node-status-report-frequency=2s"});
  REQUIRE(eventually([&] { return s.node_ready("busy-node"); }));
  auto ready_field = [&](const char* field) {
    return s.jsonpath("node/busy-node",
                      std::string("{.status.conditions[?(@.type==\"Ready\")].") + field + "}");
  };
  const std::string heartbeat = ready_field("lastHeartbeatTime");
  const std::string transition = ready_field("lastTransitionTime");
  REQUIRE(eventually([&] { return ready_field("lastHeartbeatTime") != heartbeat; }, 10s));
  CHECK(ready_field("lastTransitionTime") == transition);
}

TEST_CASE("the kubelet API on port 10250: the admin's certificate gets in, no certificate 401") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  const std::string node = lower_host_name();
  NodeSession s(box, {});
  REQUIRE(eventually([&] { return s.node_ready(node); }));
  CHECK(s.jsonpath("node/" + node, "{.status.daemonEndpoints.kubeletEndpoint.Port}") == "10250");
  auto [code, body] = s.kubelet_get(box, "/healthz", "client-admin");
  CHECK(code == "200");
  CHECK(body == "ok");
  std::tie(code, body) = s.kubelet_get(box, "/pods", "client-admin");
  CHECK(code == "200");
  CHECK(json::parse(body, nullptr, false).value("kind", "") == "PodList");
  std::tie(code, body) = s.kubelet_get(box, "/stats/summary", "client-admin");
  CHECK(code == "200");
  const json summary = json::parse(body, nullptr, false);
  INFO(body);
  CHECK(summary["node"]["nodeName"] == node);
  CHECK(summary["node"]["memory"]["workingSetBytes"].get<uint64_t>() > 0);
  CHECK(summary["node"]["cpu"]["usageCoreNanoSeconds"].get<uint64_t>() > 0);
  std::tie(code, body) = s.kubelet_get(box, "/metrics/resource", "client-admin");
  CHECK(code == "200");
  CHECK(body.find("\nnode_memory_working_set_bytes ") != std::string::npos);
  CHECK(body.find("\nresource_scrape_error 0\n") != std::string::npos);
  std::tie(code, body) = s.kubelet_get(box, "/pods", "");
  CHECK(code == "401");
  CHECK(body == "Unauthorized");
}

TEST_CASE("the scheduler binds a pod to the node; without its image it stays Pending") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  NodeSession s(box, {"--node-name", "worker-1"});
  REQUIRE(eventually([&] { return s.node_ready("worker-1"); }));
  s.ok({"run", "web", "--image=busybox", "--", "sleep", "3600"});
  REQUIRE(eventually([&] { return s.jsonpath("pod/web", "{.spec.nodeName}") == "worker-1"; }));
  CHECK(s.jsonpath("pod/web", "{.status.conditions[?(@.type==\"PodScheduled\")].status}") ==
        "True");
  // The pull cannot succeed: nothing outside the test's network namespace is reachable.
  const std::string reason = "{.status.containerStatuses[0].state.waiting.reason}";
  REQUIRE(eventually([&] {
    std::string why = s.jsonpath("pod/web", reason);
    return why == "ErrImagePull" || why == "ImagePullBackOff";
  }));
  CHECK(s.jsonpath("pod/web", "{.status.phase}") == "Pending");
}

TEST_CASE("a restarted server keeps its node and reconciles its labels; a deleted node returns") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  std::string uid;
  {
    NodeSession first(box, {"--node-name", "edge-2", "--node-label", "tier=one", "--node-taint",
                            "dedicated=edge:NoSchedule"});
    REQUIRE(eventually([&] { return first.node_ready("edge-2"); }));
    uid = first.jsonpath("node/edge-2", "{.metadata.uid}");
    // Stopping is graceful, within the stop budget.
    const auto began = std::chrono::steady_clock::now();
    first.server.signal(SIGTERM);
    CHECK(first.server.process.wait(10s) == 0);
    CHECK(std::chrono::steady_clock::now() - began < 10s);
    CHECK_THAT(first.server.process.err(), Catch::Contains("[kubelet] stopped"));
  }
  NodeSession second(box, {"--node-name", "edge-2", "--node-label", "tier=two"});
  REQUIRE(eventually(
      [&] { return second.jsonpath("node/edge-2", "{.metadata.labels.tier}") == "two"; }));
  CHECK(second.jsonpath("node/edge-2", "{.metadata.uid}") == uid);
  // Taints are applied at registration only, as upstream's --register-with-taints.
  CHECK(second.jsonpath("node/edge-2", "{.spec.taints[?(@.key==\"dedicated\")].effect}") ==
        "NoSchedule");
  CHECK_THAT(second.server.process.err(), Catch::Contains("node edge-2 was already registered"));

  second.ok({"delete", "node", "edge-2"});
  REQUIRE(eventually(
      [&] {
        std::string now = second.jsonpath("node/edge-2", "{.metadata.uid}");
        return !now.empty() && now != uid;
      },
      40s));
  CHECK(eventually([&] { return second.node_ready("edge-2"); }));
}

}  // namespace
}  // namespace k3c

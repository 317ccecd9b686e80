// The pure node object and status rules over a made-up machine.
#include "roles/kubelet/node_status.h"

#include <catch2/catch.hpp>

#include "roles/kubelet/node_reporter.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// A made-up machine: 4 CPUs, 8 GiB, a 100 GiB disk.
MachineInfo machine() {
  MachineInfo m;
  m.hostname = "Edge-Box";
  m.cpus = 4;
  m.memory_bytes = 8LL << 30;
  m.ephemeral_storage_bytes = 100LL << 30;
  m.machine_id = "0123456789abcdef0123456789abcdef";
  m.system_uuid = "4c4c4544-0000-1000-8000-000000000000";
  m.boot_id = "6f1b1c8e-7d1a-4c44-9a55-0a8d7c1f2b3e";
  m.kernel_version = "6.18.0";
  m.os_image = "Debian GNU/Linux 12 (bookworm)";
  m.architecture = "arm64";
  m.default_ipv4 = "192.168.1.20";
  return m;
}

NodeIdentity identity() {
  NodeIdentity id;
  id.name = "edge-box";
  id.control_plane = true;
  id.kubelet_version = "v1.32.0+k3c1";
  id.runtime_version = "k3c://0.1.0";
  return id;
}

const json& condition(const json& status, const std::string& type) {
  for (const json& c : status["conditions"]) {
    if (c["type"] == type) return c;
  }
  FAIL("no condition " << type);
  static json none;
  return none;
}

TEST_CASE("the node name is --node-name, else the host name in lower case") {
  CHECK(node_name_for("", "Edge-Box") == "edge-box");
  CHECK(node_name_for("worker-1", "Edge-Box") == "worker-1");
}

TEST_CASE("labels: hostname, os and arch (and beta twins), roles on servers, --node-label") {
  NodeIdentity id = identity();
  id.labels = {{"zone", "attic"}, {"kubernetes.io/arch", "overridden"}};
  json labels = node_labels(id, machine());
  CHECK(labels == json{{"kubernetes.io/hostname", "edge-box"},
                       {"kubernetes.io/os", "linux"},
                       {"kubernetes.io/arch", "overridden"},
                       {"beta.kubernetes.io/os", "linux"},
                       {"beta.kubernetes.io/arch", "arm64"},
                       {"node-role.kubernetes.io/control-plane", "true"},
                       {"node-role.kubernetes.io/master", "true"},
                       {"zone", "attic"}});
  id.control_plane = false;
  CHECK_FALSE(node_labels(id, machine()).contains("node-role.kubernetes.io/master"));
}

TEST_CASE("the registered node carries labels, taints and its first status") {
  NodeIdentity id = identity();
  id.taints = {{"dedicated", "gpu", "NoSchedule"}, {"edge", "", "NoExecute"}};
  json node = registration_node(id, machine(), {}, "2026-11-30T07:00:00Z");
  CHECK(node["metadata"]["name"] == "edge-box");
  CHECK(node["metadata"]["labels"]["kubernetes.io/hostname"] == "edge-box");
  CHECK(node["spec"]["taints"] ==
        json::parse(R"([{"key":"dedicated","value":"gpu","effect":"NoSchedule"},
                        {"key":"edge","effect":"NoExecute"}])"));
  CHECK_FALSE(node["spec"].contains("podCIDR"));  // node IPAM's
  CHECK(condition(node["status"], "Ready")["status"] == "True");
  id.taints.clear();
  CHECK_FALSE(registration_node(id, machine(), {}, "t")["spec"].contains("taints"));
}

TEST_CASE("capacity and allocatable as upstream reports them") {
  json status = node_status(identity(), machine(), {}, json::object(), "t");
  CHECK(status["capacity"] == json{{"cpu", "4"},
                                   {"memory", "8Gi"},
                                   {"ephemeral-storage", "100Gi"},
                                   {"pods", "110"},
                                   {"hugepages-1Gi", "0"},
                                   {"hugepages-2Mi", "0"}});
  // Minus memory.available<100Mi and nodefs.available<10%.
  CHECK(status["allocatable"]["memory"] == "8092Mi");
  CHECK(status["allocatable"]["ephemeral-storage"] == "90Gi");
  CHECK(status["allocatable"]["cpu"] == "4");
  CHECK(status["allocatable"]["pods"] == "110");

  MachineInfo odd = machine();
  odd.memory_bytes = 16393076LL * 1024;
  json s2 = node_status(identity(), odd, {}, json::object(), "t");
  CHECK(s2["capacity"]["memory"] == "16393076Ki");
  CHECK(s2["allocatable"]["memory"] == "16290676Ki");
  odd.ephemeral_storage_bytes = 61255492LL * 1024;  // 10% of it is not a whole KiB
  json s3 = node_status(identity(), odd, {}, json::object(), "t");
  CHECK(s3["capacity"]["ephemeral-storage"] == "61255492Ki");
  CHECK(s3["allocatable"]["ephemeral-storage"] == "56453061428");
}

TEST_CASE("addresses: --node-ip, else the default route's address, else loopback; Hostname") {
  NodeIdentity id = identity();
  MachineInfo m = machine();
  CHECK(node_status(id, m, {}, json::object(), "t")["addresses"] ==
        json::parse(R"([{"type":"InternalIP","address":"192.168.1.20"},
                        {"type":"Hostname","address":"edge-box"}])"));
  id.node_ips = {"10.0.0.5", "fd00::5"};
  CHECK(node_status(id, m, {}, json::object(), "t")["addresses"] ==
        json::parse(R"([{"type":"InternalIP","address":"10.0.0.5"},
                        {"type":"InternalIP","address":"fd00::5"},
                        {"type":"Hostname","address":"edge-box"}])"));
  id.node_ips.clear();
  m.default_ipv4.reset();
  CHECK(node_status(id, m, {}, json::object(), "t")["addresses"][0]["address"] == "127.0.0.1");
}

TEST_CASE("node info, daemon endpoints and images") {
  std::vector<runtime::ImageSummary> images = {
      {"sha256:small", {"docker.io/library/busybox:latest"}, 1000, ""},
      {"sha256:big", {"a:1", "a:2", "a:3", "a:4", "a:5", "a:6"}, 5000, ""},
      {"sha256:anon", {}, 10, ""}};
  json status = node_status(identity(), machine(), images, json::object(), "t");
  CHECK(status["nodeInfo"] == json{{"machineID", "0123456789abcdef0123456789abcdef"},
                                   {"systemUUID", "4c4c4544-0000-1000-8000-000000000000"},
                                   {"bootID", "6f1b1c8e-7d1a-4c44-9a55-0a8d7c1f2b3e"},
                                   {"kernelVersion", "6.18.0"},
                                   {"osImage", "Debian GNU/Linux 12 (bookworm)"},
                                   {"containerRuntimeVersion", "k3c://0.1.0"},
                                   {"kubeletVersion", "v1.32.0+k3c1"},
                                   {"kubeProxyVersion", "v1.32.0+k3c1"},
                                   {"operatingSystem", "linux"},
                                   {"architecture", "arm64"}});
  CHECK(status["daemonEndpoints"] == json::parse(R"({"kubeletEndpoint":{"Port":10250}})"));
  // Largest first, at most 5 names each.
  CHECK(status["images"] ==
        json::parse(R"([{"names":["a:1","a:2","a:3","a:4","a:5"],"sizeBytes":5000},
                        {"names":["docker.io/library/busybox:latest"],"sizeBytes":1000},
                        {"names":["sha256:anon"],"sizeBytes":10}])"));
  CHECK_FALSE(node_status(identity(), machine(), {}, json::object(), "t").contains("images"));
}

TEST_CASE("conditions: the pressures False, Ready True and last, with upstream's words") {
  json status = node_status(identity(), machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  std::vector<std::string> types;
  for (const json& c : status["conditions"]) types.push_back(c["type"]);
  CHECK(types ==
        std::vector<std::string>{"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"});
  CHECK(condition(status, "MemoryPressure") ==
        json{{"type", "MemoryPressure"},
             {"status", "False"},
             {"reason", "KubeletHasSufficientMemory"},
             {"message", "kubelet has sufficient memory available"},
             {"lastHeartbeatTime", "2026-11-30T07:00:00Z"},
             {"lastTransitionTime", "2026-11-30T07:00:00Z"}});
  CHECK(condition(status, "DiskPressure")["reason"] == "KubeletHasNoDiskPressure");
  CHECK(condition(status, "DiskPressure")["message"] == "kubelet has no disk pressure");
  CHECK(condition(status, "PIDPressure")["reason"] == "KubeletHasSufficientPID");
  CHECK(condition(status, "PIDPressure")["message"] == "kubelet has sufficient PID available");
  CHECK(condition(status, "Ready")["reason"] == "KubeletReady");
  CHECK(condition(status, "Ready")["message"] == "kubelet is posting ready status");
}

TEST_CASE("an unhealthy kubelet (a stalled relist) is Ready False, KubeletNotReady") {
  const json before =
      node_status(identity(), machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  NodePressure unhealthy;
  unhealthy.not_ready =
      "PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s";
  json status = node_status(identity(), machine(), {}, before, "2026-11-30T07:03:05Z", unhealthy);
  CHECK(condition(status, "Ready")["status"] == "False");
  CHECK(condition(status, "Ready")["reason"] == "KubeletNotReady");
  CHECK(condition(status, "Ready")["message"] == unhealthy.not_ready);
  CHECK(condition(status, "Ready")["lastTransitionTime"] == "2026-11-30T07:03:05Z");
  CHECK(condition_events(before, status) == std::vector<std::string>{"NodeNotReady"});
}

TEST_CASE("pressure from the eviction manager: True with upstream's reasons and events") {
  const json before =
      node_status(identity(), machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  json status = node_status(identity(), machine(), {}, before, "2026-11-30T07:00:10Z",
                            NodePressure{true, true, true});
  CHECK(condition(status, "MemoryPressure")["status"] == "True");
  CHECK(condition(status, "MemoryPressure")["reason"] == "KubeletHasInsufficientMemory");
  CHECK(condition(status, "MemoryPressure")["message"] ==
        "kubelet has insufficient memory available");
  CHECK(condition(status, "MemoryPressure")["lastTransitionTime"] == "2026-11-30T07:00:10Z");
  CHECK(condition(status, "DiskPressure")["reason"] == "KubeletHasDiskPressure");
  CHECK(condition(status, "DiskPressure")["message"] == "kubelet has disk pressure");
  CHECK(condition(status, "PIDPressure")["reason"] == "KubeletHasInsufficientPID");
  CHECK(condition(status, "PIDPressure")["message"] == "kubelet has insufficient PID available");
  CHECK(condition(status, "Ready")["status"] == "True");
  CHECK(condition_events(before, status) == std::vector<std::string>{"NodeHasInsufficientMemory",
                                                                     "NodeHasDiskPressure",
                                                                     "NodeHasInsufficientPID"});
}

TEST_CASE("allocatable follows the configured hard thresholds") {
  NodeIdentity id = identity();
  id.eviction_memory = ThresholdValue{api::Quantity::parse("1Gi"), 0};
  id.eviction_nodefs = ThresholdValue{std::nullopt, 0.05};
  json status = node_status(id, machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  CHECK(status["allocatable"]["memory"] == "7Gi");
  CHECK(status["allocatable"]["ephemeral-storage"] == "95Gi");
  id.eviction_memory.reset();
  id.eviction_nodefs.reset();
  status = node_status(id, machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  CHECK(status["allocatable"]["memory"] == "8Gi");
  CHECK(status["allocatable"]["ephemeral-storage"] == "100Gi");
}

TEST_CASE("an unchanged condition keeps its transition time; a changed one gets now") {
  json first = node_status(identity(), machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  // The node lifecycle controller marked the node Unknown meanwhile.
  json previous = first;
  for (json& c : previous["conditions"]) {
    if (c["type"] == "Ready") {
      c["status"] = "Unknown";
      c["lastTransitionTime"] = "2026-11-30T07:05:00Z";
    }
  }
  json next = node_status(identity(), machine(), {}, previous, "2026-11-30T07:10:00Z");
  CHECK(condition(next, "MemoryPressure")["lastTransitionTime"] == "2026-11-30T07:00:00Z");
  CHECK(condition(next, "MemoryPressure")["lastHeartbeatTime"] == "2026-11-30T07:10:00Z");
  CHECK(condition(next, "Ready")["lastTransitionTime"] == "2026-11-30T07:10:00Z");
  CHECK(condition_events(previous, next) == std::vector<std::string>{"NodeReady"});
  CHECK(condition_events(json::object(), first) ==
        std::vector<std::string>{"NodeHasSufficientMemory", "NodeHasNoDiskPressure",
                                 "NodeHasSufficientPID"});
  CHECK(condition_events(first, next).empty());
}

TEST_CASE("the status is written when it changed or the report frequency passed") {
  const Clock::TimePoint t0{};
  json previous = node_status(identity(), machine(), {}, json::object(), "2026-11-30T07:00:00Z");
  json same = node_status(identity(), machine(), {}, previous, "2026-11-30T07:00:10Z");
  CHECK_FALSE(status_changed(previous, same));                      // only heartbeats moved
  CHECK(status_write_due(previous, same, std::nullopt, t0, 5min));  // never written by us
  CHECK_FALSE(status_write_due(previous, same, t0, t0 + 10s, 5min));
  CHECK(status_write_due(previous, same, t0, t0 + 5min, 5min));
  MachineInfo rebooted = machine();
  rebooted.boot_id = "another";
  json changed = node_status(identity(), rebooted, {}, previous, "2026-11-30T07:00:10Z");
  CHECK(status_changed(previous, changed));
  CHECK(status_write_due(previous, changed, t0, t0 + 10s, 5min));
}

TEST_CASE("an existing node gets only the labels that differ, nothing removed") {
  NodeIdentity id = identity();
  json wanted = node_labels(id, machine());
  json node = {{"metadata", {{"name", "edge-box"}, {"labels", wanted}}}};
  CHECK_FALSE(label_patch(node, wanted).has_value());
  node["metadata"]["labels"]["kubernetes.io/arch"] = "amd64";
  node["metadata"]["labels"]["custom"] = "kept";
  node["metadata"]["labels"].erase("node-role.kubernetes.io/master");
  auto patch = label_patch(node, wanted);
  REQUIRE(patch.has_value());
  CHECK(*patch == json::parse(R"({"metadata":{"labels":{"kubernetes.io/arch":"arm64",
                                  "node-role.kubernetes.io/master":"true"}}})"));
  CHECK(label_patch(json{{"metadata", {{"name", "x"}}}}, wanted)->at("metadata")["labels"].size() ==
        wanted.size());
}

TEST_CASE("the node lease is held by the node and owned by its Node") {
  json lease = node_lease("edge-box", "uid-1", 40, "2026-11-30T07:00:00.123456Z");
  CHECK(lease == json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
      "metadata":{"name":"edge-box","namespace":"kube-node-lease",
        "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"edge-box","uid":"uid-1"}]},
      "spec":{"holderIdentity":"edge-box","leaseDurationSeconds":40,
        "renewTime":"2026-11-30T07:00:00.123456Z"}})"));
  CHECK_FALSE(node_lease("edge-box", "", 40, "t")["metadata"].contains("ownerReferences"));
}

}  // namespace
}  // namespace k3c::kubelet

// The node side of real pods, through the real kubectl: containers that outlive a restart of
// k3c and are adopted again; shareProcessNamespace (the pause as PID 1, each container seeing
// the other's processes, kept across a restart); a grpc readiness probe against a real gRPC
// health server flipping its status; eviction (a pod past its emptyDir sizeLimit; memory
// pressure from a hard threshold above the machine's memory); a static pod from the manifest
// directory with its mirror pod; a pod cgroup nothing owns swept at the relist (its process
// killed); a local-path claim that outlives its pod (with hostIPC and
// an in-memory emptyDir on the side); the node proxy to the in-process kubelet (kubectl 1.27
// and 1.33, node_proxy_checks.h). Fixtures: pod_session.h; root only.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "node_proxy_checks.h"
#include "pod_session.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::string skip_reason() { return pods_skip_reason("integration.pods_node"); }

// The pid of a pause process of this test's data dir, "" when none runs (the host's /proc:
// the test's namespaces share it).
std::string pause_pid(const Sandbox& box) {
  const std::string marker = std::string("pause") + '\0' + box.data_dir() + "/";
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    const std::string cmdline{std::istreambuf_iterator<char>(in), {}};
    if (cmdline.find(marker) != std::string::npos) return entry.path().filename().string();
  }
  return "";
}

}  // namespace

TEST_CASE("containers outlive a restart of k3c and are adopted again") {
  if (!skip_reason().empty()) return;
  RestartableNode node;
  auto& [box, ns, kubectl] = node;
  auto jsonpath = [&](const std::string& path) {
    return kubectl({"get", "pod/keep", "-o", "jsonpath=" + path}).out;
  };
  const std::string started = "{.status.containerStatuses[0].state.running.startedAt}";
  const std::string id = "{.status.containerStatuses[0].containerID}";
  auto server = ns.start_server("first");
  REQUIRE(kubectl({"run", "keep", "--image=busybox:1", "--", "sh", "-c",
                   "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done"})
              .exit_code == 0);
  REQUIRE(eventually([&] { return !jsonpath(started).empty(); }));
  const std::string first_start = jsonpath(started);
  const std::string first_id = jsonpath(id);
  // k3c goes; the container does not.
  server = ns.restart_server(*server, [&] { return jsonpath("{.status.phase}") == "Running"; });
  CHECK(jsonpath(started) == first_start);
  CHECK(jsonpath(id) == first_id);
  CHECK(jsonpath("{.status.containerStatuses[0].restartCount}") == "0");
  // The log kept growing while no k3c ran, and still does.
  const std::string logs = kubectl({"logs", "keep", "--tail=1"}).out;
  REQUIRE(logs.rfind("tick ", 0) == 0);
  CHECK(std::stoi(logs.substr(5)) >= 10);
  ns.stop_server(*server);
}

TEST_CASE(
    "shareProcessNamespace: containers see each other, PID 1 is the pause, across a restart") {
  if (!skip_reason().empty()) return;
  RestartableNode node;
  auto& [box, ns, kubectl] = node;
  const std::string manifest = box.path("shared.yaml");
  write_file(manifest, R"(apiVersion: v1
kind: Pod
metadata: {name: shared}
spec:
  shareProcessNamespace: true
  containers:
  - {name: web, image: "busybox:1", command: [sleep, "3600"]}
  - {name: side, image: "busybox:1", command: [sleep, "3601"]}
)");
  auto jsonpath = [&](const std::string& path) {
    return kubectl({"get", "pod/shared", "-o", "jsonpath=" + path}).out;
  };
  // What `side` sees: PID 1's name, and whether `web`'s sleep is in its process list.
  auto sees_web = [&] {
    auto ps = kubectl({"exec", "shared", "-c", "side", "--", "sh", "-c", "cat /proc/1/comm; ps"});
    INFO(ps.out << ps.err);
    CHECK(ps.exit_code == 0);
    CHECK(ps.out.rfind("pause\n", 0) == 0);
    CHECK(ps.out.find("sleep 3600") != std::string::npos);
    CHECK(ps.out.find("sleep 3601") != std::string::npos);
  };
  const std::string ids = "{.status.containerStatuses[*].containerID}";
  auto server = ns.start_server("first");
  REQUIRE(kubectl({"apply", "-f", manifest}).exit_code == 0);
  REQUIRE(eventually([&] { return jsonpath("{.status.phase}") == "Running"; }, 60s));
  sees_web();
  // `web` sees `side`'s process too.
  auto web =
      kubectl({"exec", "shared", "-c", "web", "--", "sh", "-c", "ps | grep -c '[s]leep 360'"});
  CHECK(web.out == "2\n");
  // The pause is charged to the pod: a leaf cgroup of its own below the pod's.
  const std::string pause = pause_pid(box);
  REQUIRE_FALSE(pause.empty());
  std::ifstream cgroup_file("/proc/" + pause + "/cgroup");
  const std::string cgroups{std::istreambuf_iterator<char>(cgroup_file), {}};
  INFO(cgroups);
  CHECK(cgroups.find("/pod" + jsonpath("{.metadata.uid}") + "/") != std::string::npos);
  const std::string first_ids = jsonpath(ids);
  // k3c goes; the pause and the containers do not.
  server = ns.restart_server(*server, [&] { return jsonpath("{.status.phase}") == "Running"; });
  CHECK(jsonpath(ids) == first_ids);
  CHECK(jsonpath("{.status.containerStatuses[*].restartCount}") == "0 0");
  sees_web();
  // Deleting the pod removes its sandbox and with it the pause process.
  REQUIRE(kubectl({"delete", "pod", "shared", "--wait=true"}).exit_code == 0);
  CHECK(eventually([&] { return pause_pid(box).empty(); }));
  ns.stop_server(*server);
}

TEST_CASE("a grpc readiness probe follows a health server between SERVING and NOT_SERVING") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  // The health server in the server's network namespace, where a hostNetwork pod's probe
  // connects; it answers what the status file says.
  const std::string status = box.path("health-status");
  write_file(status, "NOT_SERVING\n");
  std::vector<std::string> argv = p.s.server.enter_prefix();
  argv.insert(argv.end(), {K3C_GRPC_HEALTH_SERVER, "50051", status});
  testing::ChildProcess health(argv, box.env(), box.path("grpc-health"));
  REQUIRE(eventually([&] { return health.out().find("listening") != std::string::npos; }, 10s));
  const std::string manifest = box.path("grpc.yaml");
  write_file(manifest, R"(apiVersion: v1
kind: Pod
metadata: {name: healthy}
spec:
  hostNetwork: true
  containers:
  - name: app
    image: "busybox:1"
    command: [sleep, "3600"]
    readinessProbe:
      grpc: {port: 50051}
      periodSeconds: 1
      failureThreshold: 1
  - name: other
    image: "busybox:1"
    command: [sleep, "3600"]
    readinessProbe:
      grpc: {port: 50052}
      periodSeconds: 1
)");
  p.s.ok({"apply", "-f", manifest});
  auto ready = [&] { return p.s.jsonpath("pod/healthy", "{.status.containerStatuses[0].ready}"); };
  REQUIRE(eventually([&] { return p.phase("healthy") == "Running"; }, 60s));
  std::string messages;
  auto described = [&](const std::string& text) {
    messages = p.s.kubectl({"get", "events", "-o", "jsonpath={.items[*].message}"}).out;
    return messages.find(text) != std::string::npos;
  };
  CHECK(eventually([&] {
    return described("Readiness probe failed: service unhealthy (responded with \"NOT_SERVING\")");
  }));
  INFO(messages);
  CHECK(ready() == "false");
  write_file(status, "SERVING\n");
  CHECK(eventually([&] { return ready() == "true"; }));
  write_file(status, "NOT_SERVING\n");
  CHECK(eventually([&] { return ready() == "false"; }));
  write_file(status, "SERVING\n");
  CHECK(eventually([&] { return ready() == "true"; }));
  // Nothing listens on the second container's port: upstream's dial timeout.
  CHECK(eventually(
      [&] { return described("Readiness probe failed: timeout: failed to connect service"); }));
  CHECK(p.s.jsonpath("pod/healthy", "{.status.containerStatuses[1].ready}") == "false");
}

TEST_CASE("a pod writing past its emptyDir sizeLimit is evicted, as upstream's kubelet does") {
  if (!skip_reason().empty()) return;
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    Sandbox box;
    PodSession p(box, version);
    const std::string manifest = box.path("filler.yaml");
    std::ofstream(manifest) << R"Y(apiVersion: v1
kind: Pod
metadata: {name: filler}
spec:
  volumes:
  - {name: cache, emptyDir: {sizeLimit: 1Mi}}
  containers:
  - name: filler
    image: "busybox:1"
    command: [sh, -c, "dd if=/dev/zero of=/cache/fill bs=1M count=4; sleep 3600"]
    volumeMounts: [{name: cache, mountPath: /cache}]
)Y";
    p.s.ok({"apply", "-f", manifest});
    // The eviction manager looks every 10 s.
    REQUIRE(eventually([&] { return p.s.jsonpath("pod/filler", "{.status.reason}") == "Evicted"; },
                       60s));
    const std::string message = "Usage of EmptyDir volume \"cache\" exceeds the limit \"1Mi\". ";
    CHECK(p.phase("filler") == "Failed");
    CHECK(p.s.jsonpath("pod/filler", "{.status.message}") == message);
    // A local storage limit is no node pressure: no DisruptionTarget, as upstream.
    CHECK(p.s.jsonpath("pod/filler", "{.status.conditions[?(@.type==\"DisruptionTarget\")]}")
              .empty());
    // The container is killed (SIGTERM is ignored by the shell, SIGKILL after the 2 s minimum)
    // and the pod is not started again.
    REQUIRE(eventually([&] {
      return !p.s.jsonpath("pod/filler", "{.status.containerStatuses[0].state.terminated.reason}")
                  .empty();
    }));
    CHECK(p.s.jsonpath("pod/filler", "{.status.containerStatuses[0].state.terminated.reason}") ==
          "Error");
    // As upstream's printer: "Evicted" while the container still shows running, then the
    // terminated container's reason (kubernetes/kubernetes#105467).
    const std::string table = p.s.ok({"get", "pod", "filler", "--no-headers"});
    INFO(table);
    CHECK(table.find(" 0/1 ") != std::string::npos);
    CHECK(table.find(" Error ") != std::string::npos);
    const std::string described = p.s.ok({"describe", "pod", "filler"});
    INFO(described);
    CHECK(described.find("Status:           Failed") != std::string::npos);
    CHECK(described.find("Reason:           Evicted") != std::string::npos);
    CHECK(described.find("Message:          " + message) != std::string::npos);
    CHECK(described.find("Evicted") != std::string::npos);
    int evicted_events = 0;
    for (const auto& event : p.s.object({"events"}).value("items", nlohmann::json::array())) {
      if (event.value("reason", "") != "Evicted") continue;
      ++evicted_events;
      CHECK(event.value("type", "") == "Warning");
      CHECK(event.value("message", "") == message);
      CHECK(event["involvedObject"].value("name", "") == "filler");
    }
    CHECK(evicted_events == 1);
    std::this_thread::sleep_for(2s);
    CHECK(p.s.jsonpath("pod/filler", "{.status.containerStatuses[0].restartCount}") == "0");
    CHECK(p.phase("filler") == "Failed");
    CHECK(p.s.jsonpath("node/node-1", "{.status.conditions[?(@.type==\"DiskPressure\")].status}") ==
          "False");
  }
}

TEST_CASE(
    "memory pressure (a hard threshold above the machine's memory): condition, taint, eviction") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession::stage_image(box);
  // Always met, so deterministic: every pass finds less than 1000Gi available.
  NodeSession s(box,
                {"--node-name", "node-1", "--kubelet-arg=eviction-hard=memory.available<1000Gi"});
  auto condition = [&](const std::string& field) {
    return s.jsonpath("node/node-1",
                      "{.status.conditions[?(@.type==\"MemoryPressure\")]." + field + "}");
  };
  REQUIRE(eventually([&] { return condition("status") == "True"; }, 60s));
  CHECK(condition("reason") == "KubeletHasInsufficientMemory");
  CHECK(condition("message") == "kubelet has insufficient memory available");
  // The node lifecycle controller taints it, as upstream's.
  REQUIRE(eventually([&] {
    return s.jsonpath("node/node-1", "{.spec.taints[*].key}")
               .find("node.kubernetes.io/memory-pressure") != std::string::npos;
  }));
  // Bound to the node directly (the scheduler keeps pods off a tainted node). A BestEffort pod
  // is not admitted under memory pressure, as upstream's kubelet; a Burstable one is, and is
  // then evicted.
  const std::string manifest = box.path("hog.yaml");
  std::ofstream(manifest) << R"Y(apiVersion: v1
kind: Pod
metadata: {name: besteffort}
spec:
  nodeName: node-1
  containers:
  - {name: c, image: "busybox:1", command: [sleep, "3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: hog}
spec:
  nodeName: node-1
  containers:
  - name: hog
    image: "busybox:1"
    command: [sleep, "3600"]
    resources: {requests: {memory: 1Mi}}
)Y";
  s.ok({"apply", "-f", manifest});
  REQUIRE(eventually([&] { return s.jsonpath("pod/besteffort", "{.status.phase}") == "Failed"; }));
  CHECK(s.jsonpath("pod/besteffort", "{.status.reason}") == "Evicted");
  CHECK(s.jsonpath("pod/besteffort", "{.status.message}") ==
        "Pod was rejected: The node had condition: [MemoryPressure]. ");
  CHECK(s.jsonpath("pod/besteffort", "{.status.containerStatuses}").empty());
  REQUIRE(eventually([&] { return s.jsonpath("pod/hog", "{.status.reason}") == "Evicted"; }, 60s));
  CHECK(s.jsonpath("pod/hog", "{.status.phase}") == "Failed");
  const std::string message = s.jsonpath("pod/hog", "{.status.message}");
  CHECK(message.rfind(
            "The node was low on resource: memory. Threshold quantity: 1000Gi, available: ", 0) ==
        0);
  CHECK(s.jsonpath("pod/hog", "{.status.conditions[?(@.type==\"DisruptionTarget\")].reason}") ==
        "TerminationByKubelet");
  const std::string described = s.ok({"describe", "node", "node-1"});
  CHECK(described.find("EvictionThresholdMet") != std::string::npos);
  CHECK(described.find("Attempting to reclaim memory") != std::string::npos);
}

TEST_CASE("a local-path claim outlives its pod and goes with the claim; hostIPC; emptyDir Memory") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  std::ofstream(box.path("claim.yaml")) << R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 16Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: writer}
spec:
  restartPolicy: Never
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
  - {name: mem, emptyDir: {medium: Memory, sizeLimit: 8Mi}}
  containers:
  - name: app
    image: "busybox:1"
    command: [sh, -c, "echo kept > /data/file; df -k /mem | tail -1; readlink /proc/self/ns/ipc"]
    volumeMounts: [{name: data, mountPath: /data}, {name: mem, mountPath: /mem}]
)";
  p.s.ok({"apply", "-f", box.path("claim.yaml")});
  REQUIRE(eventually([&] { return p.phase("writer") == "Succeeded"; }, 30s));
  CHECK(p.s.jsonpath("pvc/data", "{.status.phase}") == "Bound");
  const std::string volume = p.s.jsonpath("pvc/data", "{.spec.volumeName}");
  const std::string dir = p.s.jsonpath("pv/" + volume, "{.spec.hostPath.path}");
  CHECK(dir.rfind(box.data_dir() + "/storage/" + volume + "_default_data", 0) == 0);
  {
    std::ifstream in(dir + "/file");
    std::string word;
    in >> word;
    CHECK(word == "kept");
  }
  // The in-memory emptyDir is a tmpfs of its sizeLimit; the pod has an IPC namespace of its
  // own, not the node's.
  const std::string writer = p.s.ok({"logs", "writer"});
  INFO(writer);
  CHECK(writer.rfind("tmpfs", 0) == 0);
  CHECK(writer.find(" 8192 ") != std::string::npos);
  const std::string node_ipc =
      std::filesystem::read_symlink("/proc/" + std::to_string(p.s.server.server_pid()) + "/ns/ipc");
  CHECK(writer.find(node_ipc) == std::string::npos);

  // The next pod finds the data; with hostIPC it shares the node's IPC namespace.
  std::ofstream(box.path("reader.yaml")) << R"(apiVersion: v1
kind: Pod
metadata: {name: reader}
spec:
  restartPolicy: Never
  hostIPC: true
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
  containers:
  - name: app
    image: "busybox:1"
    command: [sh, -c, "cat /data/file; readlink /proc/self/ns/ipc"]
    volumeMounts: [{name: data, mountPath: /data}]
)";
  p.s.ok({"apply", "-f", box.path("reader.yaml")});
  REQUIRE(eventually([&] { return p.phase("reader") == "Succeeded"; }, 30s));
  CHECK(p.s.ok({"logs", "reader"}) == "kept\n" + node_ipc + "\n");
  // Without a sizeLimit an in-memory emptyDir is as large as the pod's memory limit.
  std::ofstream(box.path("limited.yaml")) << R"(apiVersion: v1
kind: Pod
metadata: {name: limited}
spec:
  restartPolicy: Never
  volumes: [{name: mem, emptyDir: {medium: Memory}}]
  containers:
  - name: app
    image: "busybox:1"
    command: [sh, -c, "df -k /mem | tail -1"]
    volumeMounts: [{name: mem, mountPath: /mem}]
    resources: {limits: {memory: 24Mi}}
)";
  p.s.ok({"apply", "-f", box.path("limited.yaml")});
  REQUIRE(eventually([&] { return p.phase("limited") == "Succeeded"; }, 30s));
  CHECK(p.s.ok({"logs", "limited"}).find(" 24576 ") != std::string::npos);

  // Claim deleted (its pods first): the volume (reclaim Delete) and its directory go.
  p.s.ok({"delete", "pod", "writer", "reader"});
  p.s.ok({"delete", "pvc", "data"});
  CHECK(eventually([&] { return p.s.kubectl({"get", "pv", volume}).exit_code != 0; }, 30s));
  CHECK(eventually([&] { return !std::filesystem::exists(dir); }));
}

TEST_CASE("a static pod runs from the manifest directory and is mirrored into the API") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession::stage_image(box);
  const std::string manifests = box.data_dir() + "/agent/pod-manifests";
  std::filesystem::create_directories(manifests);
  std::ofstream(manifests + "/web.yaml") << R"(apiVersion: v1
kind: Pod
metadata: {name: web, labels: {tier: static}}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: busybox:1
    command: [sh, -c, "echo static pod up; while true; do sleep 1; done"]
)";
  NodeSession s(box, {"--node-name", "node-1", "--kubelet-arg=file-check-frequency=1s"});
  auto get = [&](const std::string& path) { return s.jsonpath("pod/web-node-1", path); };
  REQUIRE(eventually([&] { return get("{.status.phase}") == "Running"; }));
  const std::string hash = get("{.metadata.annotations.kubernetes\\.io/config\\.mirror}");
  CHECK(hash.size() == 32);
  CHECK(get("{.metadata.annotations.kubernetes\\.io/config\\.source}") == "file");
  CHECK(get("{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}") ==
        "Node/node-1");
  CHECK(get("{.spec.nodeName}") == "node-1");
  CHECK(get("{.spec.restartPolicy}") == "Always");  // defaulted by the kubelet
  REQUIRE(eventually([&] {
    return s.kubectl({"logs", "web-node-1"}).out.find("static pod up") != std::string::npos;
  }));
  const std::string started = get("{.status.containerStatuses[0].state.running.startedAt}");
  const std::string first_uid = get("{.metadata.uid}");

  // Deleting the mirror pod does not stop the static pod: a new mirror comes back.
  s.ok({"delete", "pod", "web-node-1", "--wait=false"});
  REQUIRE(eventually(
      [&] { return get("{.metadata.uid}") != first_uid && get("{.status.phase}") == "Running"; }));
  CHECK(get("{.status.containerStatuses[0].state.running.startedAt}") == started);
  CHECK(get("{.status.containerStatuses[0].restartCount}") == "0");

  // Removing the manifest stops the pod and deletes its mirror.
  std::filesystem::remove(manifests + "/web.yaml");
  REQUIRE(eventually([&] {
    return s.kubectl({"get", "pod", "web-node-1"}).err.find("NotFound") != std::string::npos;
  }));
}

TEST_CASE("a pod cgroup left with no pod and no sandbox is emptied and removed at the relist") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  NodeSession s(box, {"--node-name", "node-1"});
  REQUIRE(eventually([&] { return s.node_ready("node-1"); }));
  // As a k3c stopped between removing a sandbox and its cgroup leaves it: the pod cgroup in
  // every hierarchy where the kubelet made its BestEffort tier, a process still in it.
  namespace fs = std::filesystem;
  const std::string tier = s.server.cgroups.name() + "/kubepods/besteffort";
  std::vector<fs::path> tiers;
  REQUIRE(eventually([&] {
    tiers.clear();
    std::error_code ec;
    for (const auto& h : fs::directory_iterator("/sys/fs/cgroup", ec))
      if (fs::exists(h.path() / tier / "cgroup.procs", ec)) tiers.push_back(h.path() / tier);
    if (fs::exists(fs::path("/sys/fs/cgroup") / tier / "cgroup.procs", ec))
      tiers.push_back(fs::path("/sys/fs/cgroup") / tier);
    return !tiers.empty();
  }));
  // The process is in the server's PID namespace, as a pod's would be (a k3c cannot signal
  // what it cannot see): nsenter's child.
  ChildProcess enter({"/usr/bin/nsenter", "--target", std::to_string(s.server.server_pid()),
                      "--pid", "--", "/bin/sleep", "600"},
                     {}, box.path("left-behind"));
  pid_t left = 0;
  REQUIRE(eventually(
      [&] {
        const std::string pid = std::to_string(enter.pid());
        std::ifstream children("/proc/" + pid + "/task/" + pid + "/children");
        return static_cast<bool>(children >> left) && left > 0;
      },
      5s));
  for (const fs::path& t : tiers) {
    REQUIRE(fs::create_directory(t / "pod0c0ffee0-dead-beef-0000-000000000000"));
    std::ofstream(t / "pod0c0ffee0-dead-beef-0000-000000000000" / "cgroup.procs") << left << "\n";
  }
  // Removed in every hierarchy, and its process killed.
  const bool removed = eventually([&] {
    for (const fs::path& t : tiers)
      if (fs::exists(t / "pod0c0ffee0-dead-beef-0000-000000000000")) return false;
    return true;
  });
  INFO(s.server.process.err());
  CHECK(removed);
  CHECK(enter.wait(5s).has_value());  // its child was killed
  CHECK_FALSE(fs::exists("/proc/" + std::to_string(left)));
}

TEST_CASE("the node proxy reaches the kubelet of the server's own node, in-process") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  p.s.ok({"run", "talk", "--image=busybox:1", "--restart=Never", "--", "sh", "-c",
          "echo hello through the proxy; while true; do sleep 1; echo tick; done"});
  REQUIRE(eventually([&] { return p.phase("talk") == "Running"; }));
  REQUIRE(eventually([&] {
    return p.s.kubectl({"logs", "talk"}).out.find("tick") != std::string::npos;
  }));
  KubectlRunner old{box, kubectl_dir() + "/kubectl.1.27", {}, p.s.server.enter_prefix()};
  check_node_proxy(p.s.kubectl, "node-1", "10250", "talk", "hello through the proxy");
  check_node_proxy(old, "node-1", "10250", "talk", "hello through the proxy");
  check_node_proxy_follow(box, p.s.kubectl, "node-1", "talk");
  const std::string exec = exec_through_node_proxy(box, p.s.server, "node-1", "talk", "hi");
  CHECK_THAT(exec, Catch::StartsWith("HTTP/1.1 101") && Catch::Contains("hi\n") &&
                       Catch::Contains("Success"));
}

}  // namespace k3c

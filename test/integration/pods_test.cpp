// Real pods through the real kubectl (1.27 and 1.33): `k3c server` with its kubelet and
// runtime, in mount, network and PID namespaces of its own (pod_session.h; root only), runs
// containers from a busybox-static image it imported from its airgap directory. Covered: run
// to completion and `kubectl logs`; a Deployment's pods Running and `logs -f`; pods in a long
// graceful stop not holding up another pod's start; postStart and
// preStop hooks around a graceful delete; a crash loop with restarts, upstream's back-off
// timing (at once, 10 s, then 20 s), CrashLoopBackOff and `logs --previous`; init containers in
// order; a missing ConfigMap key (CreateContainerConfigError); a memory limit (OOMKilled); graceful
// deletion; the describe events; bad log requests; volumes (emptyDir shared by two
// containers, a configMap and a secret that update in place, a downwardAPI file, the service
// account token); fsGroup on volumes; httpGet and tcpSocket probes of a loopback-only pod;
// pod-max-pids and the QoS tiers' CPU shares; exec (exit codes, stdin, a terminal and its size) and
// port-forward into real containers; kubectl run -i attaching to one; the kubelet's stats. What
// concerns the node rather than one pod (restarts of k3c, shared PID namespaces, grpc probes,
// eviction, static pods) is in pods_node_test.cpp; pods that cannot start (pulls, bad input) in
// pods_input_test.cpp.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "pod_session.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::string skip_reason() { return pods_skip_reason("integration.pods"); }

}  // namespace

TEST_CASE("a pod runs to completion; kubectl logs and describe show it") {
  if (!skip_reason().empty()) return;
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    Sandbox box;
    PodSession p(box, version);
    p.s.ok({"run", "hello", "--image=busybox:1", "--restart=Never", "--", "sh", "-c",
            "echo hello from k3c; echo to stderr >&2; hostname; id -u"});
    REQUIRE(eventually([&] { return p.phase("hello") == "Succeeded"; }));
    // stdout and stderr are separate pipes: each keeps its order, not their interleaving.
    const std::string all = p.s.ok({"logs", "hello"});
    std::string logs = all;
    CHECK(logs.find("to stderr\n") != std::string::npos);
    logs.erase(logs.find("to stderr\n"), 10);
    CHECK(logs == "hello from k3c\nhello\n0\n");
    CHECK(p.s.ok({"logs", "hello", "--tail=4"}) == all);
    const std::string last_two = p.s.ok({"logs", "hello", "--tail=2"});
    CHECK(all.size() > last_two.size());
    CHECK(all.compare(all.size() - last_two.size(), last_two.size(), last_two) == 0);
    const std::string stamped = p.s.ok({"logs", "hello", "--timestamps", "--limit-bytes=40"});
    CHECK(stamped.size() == 40);
    CHECK(stamped.find("Z hello fro") != std::string::npos);
    CHECK(p.s.jsonpath("pod/hello", "{.status.containerStatuses[0].state.terminated.reason}") ==
          "Completed");
    CHECK(p.s.jsonpath("pod/hello", "{.status.containerStatuses[0].containerID}")
              .rfind("k3c://", 0) == 0);
    CHECK(p.s.jsonpath("pod/hello", "{.status.qosClass}") == "BestEffort");
    const std::string described = p.s.ok({"describe", "pod", "hello"});
    for (const char* event : {"Successfully assigned default/hello to node-1",
                              "Container image \"busybox:1\" already present on machine",
                              "Created container", "Started container"}) {
      CHECK(described.find(event) != std::string::npos);
    }
    auto previous = p.s.kubectl({"logs", "hello", "--previous"});
    CHECK(previous.exit_code != 0);
    CHECK(previous.err.find("previous terminated container \"hello\" in pod \"hello\" not found") !=
          std::string::npos);
    // The /var/log/containers link (here next to the test's pod logs), gone with the pod.
    const std::string id =
        p.s.jsonpath("pod/hello", "{.status.containerStatuses[0].containerID}").substr(6);
    const std::string link = box.path("containers") + "/hello_default_hello-" + id + ".log";
    REQUIRE(eventually([&] { return std::filesystem::is_symlink(link); }));
    CHECK(std::filesystem::read_symlink(link).string().rfind(box.path("pod-logs") + "/", 0) == 0);
    p.s.ok({"delete", "pod", "hello"});
    CHECK(eventually([&] { return !std::filesystem::is_symlink(link); }));
  }
}

TEST_CASE("a running pod's usage in the kubelet's /stats/summary and /metrics/resource") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  p.s.ok({"run", "busy", "--image=busybox:1", "--restart=Never", "--", "sh", "-c",
          "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exec sleep 3600"});
  REQUIRE(eventually([&] { return p.phase("busy") == "Running"; }));
  const std::string uid = p.s.jsonpath("pod/busy", "{.metadata.uid}");
  nlohmann::json pod;
  std::string last;  // the last answer, for a failure's message
  const bool found = eventually([&] {
    auto [code, body] = p.s.kubelet_get(box, "/stats/summary", "client-admin");
    last = code + " " + body;
    if (code != "200") return false;
    const nlohmann::json summary = nlohmann::json::parse(body, nullptr, false);
    for (const auto& candidate : summary["pods"])
      if (candidate["podRef"]["uid"] == uid && !candidate["containers"].empty()) pod = candidate;
    return !pod.is_null();
  });
  INFO(last);
  REQUIRE(found);
  INFO(pod.dump());
  CHECK(pod["podRef"]["name"] == "busy");
  CHECK(pod["podRef"]["namespace"] == "default");
  CHECK(pod["containers"][0]["name"] == "busy");
  CHECK(pod["containers"][0]["cpu"]["usageCoreNanoSeconds"].get<uint64_t>() > 0);
  CHECK(pod["containers"][0]["memory"]["workingSetBytes"].get<uint64_t>() > 0);
  CHECK(pod["memory"]["workingSetBytes"] == pod["containers"][0]["memory"]["workingSetBytes"]);
  auto [code, metrics] = p.s.kubelet_get(box, "/metrics/resource", "client-admin");
  CHECK(code == "200");
  CHECK(metrics.find("container_cpu_usage_seconds_total{container=\"busy\",namespace=\"default\","
                     "pod=\"busy\"} ") != std::string::npos);
  CHECK(metrics.find("pod_memory_working_set_bytes{namespace=\"default\",pod=\"busy\"} ") !=
        std::string::npos);
}

TEST_CASE("a Deployment's pods run; logs -f follows; deletion is graceful") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  p.s.ok({"create", "deployment", "ticker", "--image=busybox:1", "--replicas=2", "--", "sh", "-c",
          "trap 'echo bye; exit 0' TERM; i=0; while true; do echo tick $i; i=$((i+1)); "
          "sleep 0.2; done"});
  REQUIRE(eventually(
      [&] { return p.s.jsonpath("deployment/ticker", "{.status.readyReplicas}") == "2"; }));
  const std::string pod = p.s.jsonpath("pods", "{.items[0].metadata.name}");
  const std::string other = p.s.jsonpath("pods", "{.items[1].metadata.name}");
  // `logs -f` streams until the client stops reading: take the first lines.
  auto followed = p.s.kubectl({"logs", "-f", pod, "--request-timeout=3s"});
  CHECK(followed.out.rfind("tick 0\ntick 1\n", 0) == 0);
  // The container exits on SIGTERM well within the grace period; the pod goes away.
  const auto before = std::chrono::steady_clock::now();
  p.s.ok({"delete", "pod", pod});
  CHECK(std::chrono::steady_clock::now() - before < 20s);
  auto gone = p.s.kubectl({"get", "pod", pod});
  CHECK(gone.exit_code != 0);
  // DeleteOptions from the query when there is no body: grace 0 removes it at once.
  p.s.ok({"delete", "--raw", "/api/v1/namespaces/default/pods/" + other + "?gracePeriodSeconds=0"});
  CHECK(p.s.kubectl({"get", "pod", other}).exit_code != 0);
  // The ReplicaSet replaces it.
  REQUIRE(eventually(
      [&] { return p.s.jsonpath("deployment/ticker", "{.status.readyReplicas}") == "2"; }));
}

TEST_CASE("pods stopping for their whole grace period hold up no other pod") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  // `sleep` as PID 1 ignores SIGTERM: each stop lasts the 60 s grace period.
  std::ofstream(box.path("slowstop.yaml")) << R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: slowstop}
spec:
  replicas: 6
  selector: {matchLabels: {app: slowstop}}
  template:
    metadata: {labels: {app: slowstop}}
    spec:
      terminationGracePeriodSeconds: 60
      containers: [{name: app, image: "busybox:1", command: [sleep, "3600"]}]
)";
  p.s.ok({"apply", "-f", box.path("slowstop.yaml")});
  REQUIRE(eventually(
      [&] { return p.s.jsonpath("deployment/slowstop", "{.status.readyReplicas}") == "6"; }, 30s));
  p.s.ok({"delete", "deployment", "slowstop", "--cascade=foreground", "--wait=false"});
  REQUIRE(eventually(
      [&] { return p.s.jsonpath("pods", "{.items[*].metadata.deletionTimestamp}").size() > 0; }));
  p.s.ok({"run", "meanwhile", "--image=busybox:1", "--", "sleep", "3600"});
  CHECK(eventually([&] { return p.phase("meanwhile") == "Running"; }, 20s));
  // The six are still stopping.
  CHECK(p.s.ok({"get", "pods", "-l", "app=slowstop", "-o", "name"}).size() > 0);
}

TEST_CASE("postStart runs at start; a graceful delete runs preStop, then SIGTERM") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  const std::string out = box.path("hooks");
  std::ofstream(box.path("hooked.yaml")) << R"(apiVersion: v1
kind: Pod
metadata: {name: hooked}
spec:
  terminationGracePeriodSeconds: 20
  volumes: [{name: out, hostPath: {path: )"
                                         << out << R"(, type: DirectoryOrCreate}}]
  containers:
  - name: app
    image: "busybox:1"
    command: [sh, -c, "trap 'echo term >> /out/log; exit 0' TERM; while true; do sleep 0.2; done"]
    volumeMounts: [{name: out, mountPath: /out}]
    lifecycle:
      postStart:
        exec: {command: [sh, -c, "echo poststart >> /out/log"]}
      preStop:
        exec: {command: [sh, -c, "echo prestop >> /out/log; sleep 2; echo prestop-done >> /out/log"]}
)";
  p.s.ok({"apply", "-f", box.path("hooked.yaml")});
  REQUIRE(eventually([&] { return p.phase("hooked") == "Running"; }));
  auto log = [&] {
    std::ifstream in(out + "/log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  REQUIRE(eventually([&] { return log() == "poststart\n"; }));
  // kubectl waits until the pod is gone: the hook's 2 s, then the trap.
  const auto before = std::chrono::steady_clock::now();
  p.s.ok({"delete", "pod", "hooked"});
  CHECK(std::chrono::steady_clock::now() - before >= 2s);
  CHECK(log() == "poststart\nprestop\nprestop-done\nterm\n");
}

TEST_CASE("a crashing container restarts with back-off; logs --previous shows the last run") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  p.s.ok({"run", "crash", "--image=busybox:1", "--", "sh", "-c", "echo run; exit 2"});
  REQUIRE(eventually([&] { return p.waiting_reason("crash") == "CrashLoopBackOff"; }, 40s));
  // Upstream's back-off: the first restart at once, then 10 s after the second crash and 20 s
  // after the third. While the container waits in CrashLoopBackOff with restartCount n,
  // lastState is run n+1 (whole seconds; the runs take milliseconds).
  auto seconds = [](const std::string& at) -> time_t {
    std::tm tm{};
    return strptime(at.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) != nullptr ? timegm(&tm) : 0;
  };
  std::map<int, time_t> starts;
  eventually(
      [&] {
        std::istringstream fields(
            p.s.jsonpath("pod/crash",
                         "{.status.containerStatuses[0].state.waiting.reason} "
                         "{.status.containerStatuses[0].restartCount} "
                         "{.status.containerStatuses[0].lastState.terminated.startedAt}"));
        std::string reason, at;
        int restarts = 0;
        if (fields >> reason >> restarts >> at && reason == "CrashLoopBackOff" && seconds(at) != 0)
          starts.emplace(restarts + 1, seconds(at));
        return starts.count(4) > 0;
      },
      60s);
  REQUIRE(starts.count(2));
  REQUIRE(starts.count(3));
  REQUIRE(starts.count(4));
  CHECK(starts[2] - seconds(p.s.jsonpath("pod/crash", "{.status.startTime}")) <= 3);
  CHECK(starts[3] - starts[2] >= 9);
  CHECK(starts[3] - starts[2] <= 14);
  CHECK(starts[4] - starts[3] >= 19);
  CHECK(starts[4] - starts[3] <= 25);
  CHECK(std::stoi(p.s.jsonpath("pod/crash", "{.status.containerStatuses[0].restartCount}")) >= 1);
  CHECK(p.s.jsonpath("pod/crash", "{.status.containerStatuses[0].lastState.terminated.exitCode}") ==
        "2");
  CHECK(p.s.ok({"logs", "crash", "--previous"}) == "run\n");
  CHECK(p.s.ok({"get", "pod", "crash"}).find("CrashLoopBackOff") != std::string::npos);
  CHECK(p.s.ok({"describe", "pod", "crash"}).find("Back-off restarting failed container crash") !=
        std::string::npos);
}

TEST_CASE("init containers run in order before the app container") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  const std::string manifest = box.path("init.yaml");
  std::ofstream(manifest) << R"(apiVersion: v1
kind: Pod
metadata: {name: ordered}
spec:
  restartPolicy: Never
  initContainers:
  - {name: first, image: "busybox:1", command: [sh, -c, "echo first"]}
  - {name: second, image: "busybox:1", command: [sh, -c, "echo second"]}
  containers:
  - {name: app, image: "busybox:1", command: [sh, -c, "echo app"]}
)";
  p.s.ok({"apply", "-f", manifest});
  REQUIRE(eventually([&] { return p.phase("ordered") == "Succeeded"; }));
  const std::string first =
      p.s.jsonpath("pod/ordered", "{.status.initContainerStatuses[0].state.terminated.finishedAt}");
  const std::string second =
      p.s.jsonpath("pod/ordered", "{.status.initContainerStatuses[1].state.terminated.startedAt}");
  CHECK_FALSE(first.empty());
  CHECK(first <= second);
  CHECK(p.s.ok({"logs", "ordered", "-c", "second"}) == "second\n");
  CHECK(p.s.ok({"logs", "ordered"}) == "app\n");
  CHECK(p.s.jsonpath("pod/ordered", "{.status.conditions[?(@.type==\"Initialized\")].status}") ==
        "True");
}

TEST_CASE("a missing ConfigMap key and a memory limit give upstream's reasons") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  const std::string manifest = box.path("bad.yaml");
  std::ofstream(manifest) << R"(apiVersion: v1
kind: Pod
metadata: {name: config}
spec:
  containers:
  - name: app
    image: "busybox:1"
    command: [sleep, "100"]
    env:
    - name: X
      valueFrom: {configMapKeyRef: {name: settings, key: mode}}
---
apiVersion: v1
kind: Pod
metadata: {name: hog}
spec:
  restartPolicy: Never
  containers:
  - name: hog
    image: "busybox:1"
    command: [sh, -c, "dd if=/dev/zero of=/dev/null bs=64M count=1"]
    resources: {limits: {memory: 16Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: farewell}
spec:
  restartPolicy: Never
  containers:
  - {name: app, image: "busybox:1", command: [sh, -c, "echo bye > /dev/termination-log; exit 1"]}
  - name: fallback
    image: "busybox:1"
    command: [sh, -c, "echo from the log; exit 2"]
    terminationMessagePolicy: FallbackToLogsOnError
)";
  p.s.ok({"apply", "-f", manifest});
  REQUIRE(eventually([&] { return p.waiting_reason("config") == "CreateContainerConfigError"; }));
  CHECK(p.s.jsonpath("pod/config", "{.status.containerStatuses[0].state.waiting.message}") ==
        "configmap \"settings\" not found");
  REQUIRE(eventually([&] { return p.phase("hog") == "Failed"; }));
  CHECK(p.s.jsonpath("pod/hog", "{.status.containerStatuses[0].state.terminated.reason}") ==
        "OOMKilled");
  CHECK(p.s.jsonpath("pod/hog", "{.status.containerStatuses[0].state.terminated.exitCode}") ==
        "137");
  CHECK(p.s.jsonpath("pod/hog", "{.status.qosClass}") == "Burstable");
  // Termination messages: the file, or the log's end under FallbackToLogsOnError.
  REQUIRE(eventually([&] { return p.phase("farewell") == "Failed"; }));
  CHECK(p.s.jsonpath("pod/farewell", "{.status.containerStatuses[0].state.terminated.message}") ==
        "bye\n");
  CHECK(p.s.jsonpath("pod/farewell", "{.status.containerStatuses[1].state.terminated.message}") ==
        "from the log\n");
  auto waiting = p.s.kubectl({"logs", "config"});
  CHECK(waiting.exit_code != 0);
  CHECK(waiting.err.find("container \"app\" in pod \"config\" is waiting to start: "
                         "CreateContainerConfigError") != std::string::npos);
  // With the ConfigMap in place the container starts.
  p.s.ok({"create", "configmap", "settings", "--from-literal=mode=fast"});
  REQUIRE(eventually([&] { return p.phase("config") == "Running"; }, 30s));
}

TEST_CASE("pod-max-pids caps a pod's processes; the QoS tiers get their CPU shares") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box, "1.33", {"--kubelet-arg=pod-max-pids=12"});
  const std::string manifest = box.path("forks.yaml");
  // Burstable (a CPU request, no limits), and it tries to start 40 sleeps in the background.
  std::ofstream(manifest) << R"(apiVersion: v1
kind: Pod
metadata: {name: forks}
spec:
  containers:
  - name: app
    image: "busybox:1"
    command: [sh, -c, "for i in $(seq 40); do sleep 600 & done; echo all started; sleep 600"]
    resources: {requests: {cpu: 300m}}
)";
  p.s.ok({"apply", "-f", manifest});
  REQUIRE(eventually([&] { return p.phase("forks") == "Running"; }));
  const std::string uid = p.s.jsonpath("pod/forks", "{.metadata.uid}");
  const std::string pod = "kubepods/burstable/pod" + uid;
  CHECK(p.cgroup_file(pod, "pids.max") == "12");
  // busybox sh gives up at the first fork refused: the container ends with the message.
  std::string logs;
  CHECK(eventually([&] {
    logs = p.s.kubectl({"logs", "forks"}).out + p.s.kubectl({"logs", "forks", "--previous"}).out;
    return logs.find("can't fork") != std::string::npos;
  }));
  INFO(logs);
  CHECK(logs.find("all started") == std::string::npos);
  CHECK(std::stoll("0" + p.cgroup_file(pod, "pids.current")) <= 12);
  // kubepods: the node's CPUs; burstable: the requests of its pods (300m); besteffort: 2.
  const std::string cpus = p.s.jsonpath("node/node-1", "{.status.allocatable.cpu}");
  if (!p.cgroup_file("kubepods", "cpu.shares").empty()) {
    CHECK(p.cgroup_file("kubepods", "cpu.shares") == std::to_string(std::stoll(cpus) * 1024));
    CHECK(p.cgroup_file("kubepods/burstable", "cpu.shares") == "307");
    CHECK(p.cgroup_file("kubepods/besteffort", "cpu.shares") == "2");
  } else {  // cgroup v2: the weights runc's conversion gives those shares
    CHECK(p.cgroup_file("kubepods/burstable", "cpu.weight") ==
          std::to_string(1 + (307 - 2) * 9999 / 262142));
    CHECK(p.cgroup_file("kubepods/besteffort", "cpu.weight") == "1");
  }
  // The tier shrinks back when its pod goes.
  p.s.ok({"delete", "pod", "forks", "--grace-period=1"});
  if (!p.cgroup_file("kubepods", "cpu.shares").empty())
    CHECK(eventually([&] { return p.cgroup_file("kubepods/burstable", "cpu.shares") == "2"; }));
}

TEST_CASE("volumes: emptyDir, configMap updated in place, secret, downwardAPI, token") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  const std::string config = box.path("config.yaml");
  auto write_config = [&](const std::string& mode) {
    std::ofstream(config) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
                             "data: {mode: "
                          << mode << "}\n";
  };
  write_config("slow");
  p.s.ok({"apply", "-f", config});
  p.s.ok({"create", "secret", "generic", "creds", "--from-literal=password=hunter2"});
  const std::string manifest = box.path("volumes.yaml");
  std::ofstream(manifest) << R"Y(apiVersion: v1
kind: Pod
metadata:
  name: vols
  labels: {app: vols, tier: test}
spec:
  volumes:
  - {name: shared, emptyDir: {}}
  - {name: cfg, configMap: {name: settings}}
  - {name: sec, secret: {secretName: creds}}
  - name: info
    downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}
  containers:
  - name: writer
    image: "busybox:1"
    command: [sh, -c, "echo hello > /shared/greeting; sleep 1000"]
    volumeMounts: [{name: shared, mountPath: /shared}]
  - name: reader
    image: "busybox:1"
    command:
    - sh
    - -c
    - >-
      while true;
      do t=/var/run/secrets/kubernetes.io/serviceaccount;
      echo "shared=$(cat /shared/greeting) cfg=$(cat /cfg/mode) sec=$(cat /sec/password)
      token=$(test -s $t/token && echo yes) ns=$(cat $t/namespace)
      labels=$(cat /info/labels | tr '\n' ,)";
      sleep 1; done
    volumeMounts:
    - {name: shared, mountPath: /shared, readOnly: true}
    - {name: cfg, mountPath: /cfg}
    - {name: sec, mountPath: /sec}
    - {name: info, mountPath: /info}
)Y";
  p.s.ok({"apply", "-f", manifest});
  if (!eventually([&] { return p.phase("vols") == "Running"; }, 40s)) {
    FAIL(p.s.kubectl({"describe", "pod", "vols"}).out);
  }
  auto last_line = [&] {
    std::string out = p.s.kubectl({"logs", "vols", "-c", "reader", "--tail=1"}).out;
    return out;
  };
  std::string line;
  REQUIRE(eventually(
      [&] {
        line = last_line();
        return line.find("shared=hello") != std::string::npos;
      },
      20s));
  INFO(line);
  CHECK(line.find("cfg=slow") != std::string::npos);
  CHECK(line.find("sec=hunter2") != std::string::npos);
  CHECK(line.find("token=yes") != std::string::npos);
  CHECK(line.find("ns=default") != std::string::npos);
  CHECK(line.find("labels=app=\"vols\",tier=\"test\"") != std::string::npos);
  // The ConfigMap and the Secret change; the files follow in place (the kubelet's periodic
  // resync: a minute).
  write_config("fast");
  p.s.ok({"apply", "-f", config});
  std::ofstream(box.path("secret.yaml"))
      << p.s.ok({"create", "secret", "generic", "creds", "--from-literal=password=swordfish",
                 "--dry-run=client", "-o", "yaml"});
  p.s.ok({"apply", "-f", box.path("secret.yaml")});
  CHECK(eventually(
      [&] {
        line = last_line();
        return line.find("cfg=fast") != std::string::npos &&
               line.find("sec=swordfish") != std::string::npos;
      },
      100s));
  INFO(line);
  // A missing ConfigMap holds the container back with upstream's FailedMount event.
  std::ofstream(box.path("missing.yaml")) << R"(apiVersion: v1
kind: Pod
metadata: {name: waiting}
spec:
  volumes: [{name: cfg, configMap: {name: absent}}]
  containers:
  - {name: app, image: "busybox:1", command: [sleep, "100"], volumeMounts: [{name: cfg, mountPath: /cfg}]}
)";
  p.s.ok({"apply", "-f", box.path("missing.yaml")});
  CHECK(eventually([&] {
    return p.s.ok({"describe", "pod", "waiting"})
               .find(
                   "MountVolume.SetUp failed for volume \"cfg\" : configmap \"absent\" not "
                   "found") != std::string::npos;
  }));
  CHECK(p.phase("waiting") == "Pending");
  CHECK(p.waiting_reason("waiting") == "ContainerCreating");
  // Deleted, the pod's volume directory goes with its sandbox.
  const std::string dir =
      box.data_dir() + "/agent/pods/" + p.s.jsonpath("pod/vols", "{.metadata.uid}");
  CHECK(std::filesystem::is_directory(dir + "/volumes/kubernetes.io~configmap/cfg"));
  p.s.ok({"delete", "pod", "vols", "--grace-period=1"});
  CHECK(eventually([&] { return !std::filesystem::exists(dir); }));
}

TEST_CASE("fsGroup: volumes and new files belong to the pod's group") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  p.s.ok({"create", "configmap", "fsg", "--from-literal=k=v"});
  const std::string manifest = box.path("fsgroup.yaml");
  std::ofstream(manifest) << R"(apiVersion: v1
kind: Pod
metadata: {name: fsg}
spec:
  restartPolicy: Never
  securityContext: {runAsUser: 1000, fsGroup: 2000}
  volumes:
  - {name: data, emptyDir: {}}
  - {name: cfg, configMap: {name: fsg}}
  containers:
  - name: app
    image: busybox:1
    command: [sh, -c, "stat -c %g /data; stat -c %g /cfg/k; touch /data/f; stat -c %g /data/f; id -G"]
    volumeMounts: [{name: data, mountPath: /data}, {name: cfg, mountPath: /cfg}]
)";
  p.s.ok({"apply", "-f", manifest});
  REQUIRE(eventually([&] { return p.phase("fsg") == "Succeeded"; }, 60s));
  const std::string out = p.s.ok({"logs", "fsg"});
  CHECK(out.rfind("2000\n2000\n2000\n", 0) == 0);
  CHECK(out.find(" 2000") != std::string::npos);  // a supplemental group of the process
}
// The streaming chain into a real container: the API server, kubelet and protocols are done
// (integration.streaming drives them over a fake runtime); this needs LinuxRuntime's exec,
// attach and port_forward, built in parallel. Until they are, the runtime answers "not
// implemented" and this test says so and stops; after the merge it runs.

TEST_CASE("kubectl exec into a real container: exit codes, stdin, a terminal and its size") {
  if (!skip_reason().empty()) return;
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    Sandbox box;
    PodSession p(box, version);
    p.s.ok({"run", "sleeper", "--image=busybox:1", "--restart=Never", "--", "sleep", "3600"});
    REQUIRE(eventually([&] { return p.phase("sleeper") == "Running"; }, 60s));
    auto three = p.s.kubectl({"exec", "sleeper", "--", "sh", "-c", "echo out; exit 3"});
    INFO(three.err);
    CHECK(three.exit_code == 3);
    CHECK(three.out == "out\n");
    CHECK(p.s.ok({"exec", "sleeper", "--", "hostname"}) == "sleeper\n");
    // Piped stdin reaches the process and its end ends the process.
    std::vector<std::string> piped = {"/bin/sh", "-c", "printf 'one\\ntwo\\n' | \"$@\"", "sh"};
    for (std::string& arg : p.s.kubectl.argv({"exec", "-i", "sleeper", "--", "wc", "-l"}))
      piped.push_back(std::move(arg));
    auto counted = run_to_end(piped, p.s.kubectl.env(), box.path("kubectl"), 30s);
    INFO(counted.err);
    CHECK(counted.exit_code == 0);
    CHECK(counted.out.find('2') != std::string::npos);
    // -it on a terminal: `script` gives kubectl one (40 rows, 100 columns), kubectl sends its
    // size, the container's pseudo terminal takes it.
    std::string command = "stty rows 40 cols 100;";
    for (const std::string& arg : p.s.kubectl.argv(
             {"exec", "-it", "sleeper", "--", "sh", "-c", "tty && sleep 1 && stty size && exit 4"}))
      command += " '" + arg + "'";
    auto terminal = run_to_end({"/usr/bin/script", "-qec", command, "/dev/null"}, p.s.kubectl.env(),
                               box.path("script"), 30s);
    INFO(terminal.out << terminal.err);
    CHECK(terminal.exit_code == 4);
    CHECK(terminal.out.find("/dev/pts/") != std::string::npos);
    CHECK(terminal.out.find("40 100") != std::string::npos);
  }
}

TEST_CASE("httpGet and tcpSocket probes reach a pod with loopback only, in its namespace") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  std::ofstream(box.path("probed.yaml")) << R"(apiVersion: v1
kind: Pod
metadata: {name: probed}
spec:
  containers:
  - name: web
    image: "busybox:1"
    command: [sh, -c, "mkdir -p /www && echo ok > /www/index.html && httpd -f -p 8080 -h /www"]
    readinessProbe: {httpGet: {path: /index.html, port: 8080}, periodSeconds: 1}
    livenessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1, failureThreshold: 3}
---
apiVersion: v1
kind: Pod
metadata: {name: closed}
spec:
  containers:
  - name: web
    image: "busybox:1"
    command: [sleep, "3600"]
    readinessProbe: {httpGet: {path: /, port: 9999}, periodSeconds: 1}
)";
  p.s.ok({"apply", "-f", box.path("probed.yaml")});
  REQUIRE(eventually([&] {
    return p.s.jsonpath("pod/probed", "{.status.containerStatuses[0].ready}") == "true";
  }));
  // Still up (the liveness probe passes) a few periods later.
  std::this_thread::sleep_for(4s);
  CHECK(p.s.jsonpath("pod/probed", "{.status.containerStatuses[0].restartCount}") == "0");
  CHECK(p.s.jsonpath("pod/probed", "{.status.conditions[?(@.type==\"Ready\")].status}") == "True");
  CHECK(p.s.jsonpath("pod/closed", "{.status.containerStatuses[0].ready}") == "false");
  CHECK(eventually([&] {
    return p.s.ok({"describe", "pod", "closed"})
               .find(
                   "Readiness probe failed: Get \"http://127.0.0.1:9999/\": dial tcp "
                   "127.0.0.1:9999: connect: connection refused") != std::string::npos;
  }));
}

TEST_CASE("kubectl port-forward reaches a real container's port") {
  if (!skip_reason().empty()) return;
  // Plain SPDY (1.27) and SPDY tunnelled in a WebSocket (1.33).
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    Sandbox box;
    PodSession p(box, version);
    p.s.ok({"run", "web", "--image=busybox:1", "--restart=Never", "--", "sh", "-c",
            "mkdir -p /www && echo hello-from-pod > /www/index.html && httpd -f -p 8080 -h /www"});
    REQUIRE(eventually([&] { return p.phase("web") == "Running"; }, 60s));
    testing::ChildProcess forward(p.s.kubectl.argv({"port-forward", "pod/web", "18080:8080"}),
                                  p.s.kubectl.env(), box.path("port-forward"));
    REQUIRE(eventually([&] { return forward.out().find("Forwarding from") != std::string::npos; }));
    // curl in the server's network namespace, where kubectl listens.
    std::vector<std::string> curl = p.s.server.enter_prefix();
    for (const char* arg : {"/usr/bin/curl", "-sS", "--max-time", "10", "http://127.0.0.1:18080/"})
      curl.push_back(arg);
    std::string got;
    REQUIRE(eventually([&] {
      got = run_to_end(curl, box.env(), box.path("curl"), 20s).out;
      return !got.empty();
    }));
    CHECK(got == "hello-from-pod\n");
    // A second connection through the same tunnel.
    CHECK(run_to_end(curl, box.env(), box.path("curl"), 20s).out == "hello-from-pod\n");
    forward.signal(SIGTERM);
    (void)forward.wait(5s);
  }
}

TEST_CASE("kubectl run -i attaches to a real container's stdin and output") {
  if (!skip_reason().empty()) return;
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    Sandbox box;
    PodSession p(box, version);
    std::vector<std::string> piped = {"/bin/sh", "-c", "printf 'abc\\n' | \"$@\"", "sh"};
    for (std::string& arg :
         p.s.kubectl.argv({"run", "reader", "-i", "--restart=Never", "--image=busybox:1", "--",
                           "sh", "-c", "read x; echo got:$x"}))
      piped.push_back(std::move(arg));
    auto attached = run_to_end(piped, p.s.kubectl.env(), box.path("kubectl"), 60s);
    INFO(attached.err);
    CHECK(attached.exit_code == 0);
    CHECK(attached.out.find("got:abc") != std::string::npos);
    REQUIRE(eventually([&] { return p.phase("reader") == "Succeeded"; }, 30s));
  }
}

}  // namespace k3c

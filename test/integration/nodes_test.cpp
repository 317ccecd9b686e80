// Node lifecycle, taint eviction and pod GC driven through kubectl, with the controller
// manager's timings shortened by --kube-controller-manager-arg (which this also tests).
// There is no kubelet: the test posts node heartbeats and pod phases itself, as one would.
#include <catch2/catch.hpp>
#include <chrono>
#include <set>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::string now_rfc3339() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

TEST_CASE(
    "silent nodes go Unknown and tainted, their pods are evicted, pods of gone nodes "
    "are collected") {
  KubectlSandbox session("1.33", {"--kube-controller-manager-arg=node-monitor-period=500ms",
                                  "--kube-controller-manager-arg=node-monitor-grace-period=3s",
                                  "--kube-controller-manager-arg=node-startup-grace-period=2s",
                                  "--kube-controller-manager-arg=terminated-pod-gc-threshold=1"});
  const KubectlRunner& kubectl = session.kubectl;
  auto jsonpath = [&](std::vector<std::string> args, const std::string& path) {
    args.insert(args.begin(), "get");
    args.insert(args.end(), {"-o", "jsonpath=" + path});
    return kubectl(args).out;
  };

  // A pod bound to a node that never exists: the pod GC takes it after the quarantine.
  session.ok({"apply"}, session.file("ghost.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: ghost}
spec:
  nodeName: no-such-node
  containers: [{name: c, image: busybox}]
)"));
  const auto ghost_created = std::chrono::steady_clock::now();

  session.ok({"apply"}, session.file("node.yaml", R"(apiVersion: v1
kind: Node
metadata: {name: n1}
)"));
  // Never posted status: after node-startup-grace-period, Unknown and unreachable.
  REQUIRE(eventually([&] {
    return jsonpath({"node", "n1"}, "{.status.conditions[?(@.type==\"Ready\")].reason}") ==
           "NodeStatusNeverUpdated";
  }));
  REQUIRE(eventually([&] {
    return jsonpath({"node", "n1"}, "{.spec.taints[*].key}") ==
           "node.kubernetes.io/unreachable node.kubernetes.io/unreachable";
  }));
  CHECK(jsonpath({"node", "n1"}, "{.status.conditions[*].status}") ==
        "Unknown Unknown Unknown Unknown");

  // Heartbeats bring it back: Ready, no condition taints.
  auto heartbeat = [&] {
    const std::string t = now_rfc3339();
    kubectl({"patch", "node", "n1", "--subresource=status", "--type=merge", "-p",
             R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady",)"
             R"("message":"ok","lastHeartbeatTime":")" +
                 t + R"(","lastTransitionTime":")" + t + R"("}]}})"});
  };
  heartbeat();
  REQUIRE(eventually([&] { return jsonpath({"node", "n1"}, "{.spec.taints}").empty(); }));
  CHECK(jsonpath({"node", "n1"}, "{.status.conditions[?(@.type==\"Ready\")].status}") == "True");

  // A pod on n1 that tolerates unreachable for 1 s, and one that tolerates it forever.
  session.ok({"apply"}, session.file("pods.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: brief}
spec:
  nodeName: n1
  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute,
                 tolerationSeconds: 1}]
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: stays}
spec:
  nodeName: n1
  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}]
  containers: [{name: c, image: busybox}]
)"));
  kubectl({"patch", "pod", "brief", "--subresource=status", "--type=merge", "-p",
           R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})"});
  // The kubelet goes silent: after the grace period the pod is marked not Ready, then evicted
  // (no kubelet finishes the graceful delete, so it stays Terminating).
  REQUIRE(eventually([&] {
    return !jsonpath({"pod", "brief"}, "{.metadata.deletionTimestamp}").empty();
  }));
  CHECK(
      jsonpath({"pod", "brief"}, "{.status.conditions[?(@.type==\"DisruptionTarget\")].reason}") ==
      "DeletionByTaintManager");
  CHECK(jsonpath({"pod", "brief"}, "{.status.conditions[?(@.type==\"Ready\")].status}") == "False");
  CHECK(jsonpath({"pod", "stays"}, "{.metadata.deletionTimestamp}").empty());
  auto events = kubectl({"get", "events", "--field-selector", "involvedObject.name=brief"}).out;
  CHECK_THAT(events, Catch::Contains("TaintManagerEviction"));
  CHECK_THAT(events, Catch::Contains("NodeNotReady"));
  auto node_events = kubectl({"get", "events", "--field-selector", "involvedObject.name=n1"}).out;
  CHECK_THAT(node_events, Catch::Contains("Node n1 status is now: NodeNotReady"));

  // Terminated pods beyond terminated-pod-gc-threshold=1 go, oldest first.
  for (const char* name : {"done-1", "done-2", "done-3"}) {
    session.ok({"run", name, "--image=busybox", "--restart=Never"});
    kubectl({"patch", "pod", name, "--subresource=status", "--type=merge", "-p",
             R"({"status":{"phase":"Succeeded"}})"});
    std::this_thread::sleep_for(1100ms);  // distinct creation seconds
  }
  REQUIRE(eventually(
      [&] {
        return kubectl({"get", "pods", "-o", "name"}).out.find("done-1") == std::string::npos;
      },
      30s));
  CHECK(eventually(
      [&] {
        return kubectl({"get", "pods", "-o", "name"}).out.find("done-2") == std::string::npos;
      },
      30s));
  CHECK(kubectl({"get", "pod", "done-3", "-o", "name"}).out == "pod/done-3\n");

  // The ghost pod: seen missing at a pass (every 20 s), then 40 s of quarantine: gone within
  // 80 s of its creation, 100 s leaves room for a busy machine.
  auto waited = std::chrono::steady_clock::now() - ghost_created;
  INFO("server log: " << session.server.process.err());
  INFO("ghost: " << kubectl({"get", "pod", "ghost", "-o", "yaml"}).out);
  REQUIRE(eventually(
      [&] {
        return kubectl({"get", "pod", "ghost"}).err.find("NotFound") != std::string::npos;
      },
      std::chrono::duration_cast<std::chrono::seconds>(100s - waited)));
}

TEST_CASE("nodes get pod CIDRs sliced from --cluster-cidr") {
  KubectlSandbox session("1.33", {"--cluster-cidr=10.60.0.0/16",
                                  "--kube-controller-manager-arg=node-cidr-mask-size=25"});
  const KubectlRunner& kubectl = session.kubectl;
  auto cidrs = [&](const std::string& node) {
    return kubectl({"get", "node", node, "-o", "jsonpath={.spec.podCIDR} {.spec.podCIDRs}"}).out;
  };
  // A node that brings its own keeps it, and that slice is not handed out again.
  session.ok({"apply"}, session.file("own.yaml", R"(apiVersion: v1
kind: Node
metadata: {name: own}
spec: {podCIDR: 10.60.0.0/25, podCIDRs: [10.60.0.0/25]}
)"));
  session.ok({"apply"}, session.file("nodes.yaml", R"(apiVersion: v1
kind: Node
metadata: {name: a}
---
apiVersion: v1
kind: Node
metadata: {name: b}
)"));
  REQUIRE(eventually([&] { return !cidrs("a").empty() && !cidrs("b").empty(); }));
  std::set<std::string> given = {cidrs("a"), cidrs("b")};
  CHECK(given == std::set<std::string>{"10.60.0.128/25 [\"10.60.0.128/25\"]",
                                       "10.60.1.0/25 [\"10.60.1.0/25\"]"});
  CHECK(cidrs("own") == "10.60.0.0/25 [\"10.60.0.0/25\"]");
  // A deleted node's slice goes to the next node.
  const std::string freed = cidrs("a").substr(0, cidrs("a").find(' '));
  session.ok({"delete", "node", "a"});
  std::this_thread::sleep_for(1s);  // for the controller's cache to see the deletion
  session.ok({"apply"},
             session.file("c.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: c}\n"));
  REQUIRE(eventually([&] { return !cidrs("c").empty(); }));
  CHECK(cidrs("c").substr(0, cidrs("c").find(' ')) == freed);
}

TEST_CASE("bad --kube-controller-manager-arg and --kube-scheduler-arg values stop the start") {
  Sandbox box;
  for (auto [arg, message] : std::vector<std::pair<std::string, std::string>>{
           {"--kube-controller-manager-arg=node-monitor-grace-period=soon",
            "invalid value \"node-monitor-grace-period=soon\": kube-controller-manager flag "
            "node-monitor-grace-period: expected a duration such as 30s, 5m or 1h30m"},
           {"--kube-controller-manager-arg=no-such=1",
            "unknown kube-controller-manager flag "
            "no-such"},
           {"--kube-scheduler-arg=secure-port=1",
            "kube-scheduler flag secure-port is not "
            "supported by k3c"}}) {
    auto r = run_to_end({K3C_BINARY, "server", "--disable-agent", "--data-dir", box.path("d"), arg},
                        box.env(), box.path("bad-start"), 10s);
    INFO(r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(message));
  }
}

}  // namespace
}  // namespace k3c

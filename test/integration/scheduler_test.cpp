// The scheduler role driven by the real kubectl: pods are bound to nodes that fit, an
// unschedulable pod says why (condition and event, as upstream words them) and is placed once a
// node that fits appears, a higher-priority pod preempts a lower one, pods of another scheduler
// are left alone, and --disable-scheduler leaves pods pending.
//
// There is no kubelet (--disable-agent): nodes are Node objects whose capacity the test reports
// through nodes/status, as a kubelet would; a preempted pod is removed by the test as its
// kubelet would once it stopped.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

// Creates node `name` and reports its capacity through the status subresource.
void add_node(const KubectlSandbox& s, const std::string& name, const std::string& cpu,
              const std::string& taint = "") {
  std::string yaml = "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
                     "\n  labels:\n    kubernetes.io/hostname: " + name + "\n";
  if (!taint.empty()) {
    yaml += "spec:\n  taints:\n  - key: " + taint.substr(0, taint.find('=')) +
            "\n    value: " + taint.substr(taint.find('=') + 1) + "\n    effect: NoSchedule\n";
  }
  s.ok({"apply"}, s.file(name + ".yaml", yaml));
  std::string resources = R"({"cpu":")" + cpu + R"(","memory":"4Gi","pods":"110"})";
  s.ok({"patch", "node", name, "--subresource=status", "--type=merge", "-p",
        R"({"status":{"capacity":)" + resources + R"(,"allocatable":)" + resources + "}}"});
}

std::string pod_yaml(const std::string& name, const std::string& cpu,
                     const std::string& extra_spec = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\nspec:\n" + extra_spec +
         "  containers:\n  - name: c\n    image: busybox\n    resources:\n      requests:\n"
         "        cpu: " +
         cpu + "\n";
}

std::string jsonpath(const KubectlSandbox& s, const std::string& what, const std::string& path) {
  return s.kubectl({"get", what, "-o", "jsonpath=" + path}).out;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST_CASE("pods are bound to nodes that fit; an unschedulable pod says why, then fits") {
  KubectlSandbox s("1.33");
  add_node(s, "n1", "2");
  add_node(s, "n2", "1", "dedicated=gpu");

  s.ok({"apply"}, s.file("web.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: 100m}
)"));
  REQUIRE(eventually([&] {
    auto nodes = words(jsonpath(s, "pods", "{.items[*].spec.nodeName}"));
    return nodes.size() == 3;
  }));
  // n2's taint is not tolerated: every replica is on n1.
  CHECK(words(jsonpath(s, "pods", "{.items[*].spec.nodeName}")) ==
        std::vector<std::string>{"n1", "n1", "n1"});
  CHECK(words(jsonpath(s, "pods",
                       "{.items[*].status.conditions[?(@.type==\"PodScheduled\")].status}")) ==
        std::vector<std::string>{"True", "True", "True"});
  std::string pod = words(jsonpath(s, "pods", "{.items[0].metadata.name}")).at(0);
  REQUIRE(eventually([&] {
    return s.kubectl({"describe", "pod", pod})
               .out.find("Successfully assigned default/" + pod + " to n1") != std::string::npos;
  }));
  CHECK_THAT(s.kubectl({"describe", "pod", pod}).out,
             Catch::Contains("Normal  Scheduled") && Catch::Contains("default-scheduler"));

  // 3 cpu fits nowhere: n1 has 2 in all (more than its allocatable: preemption cannot help
  // there either, as upstream says), n2 is tainted.
  s.ok({"apply"}, s.file("big.yaml", pod_yaml("big", "3")));
  const std::string message =
      "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint "
      "{dedicated: gpu}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
      "scheduling.";
  REQUIRE(eventually([&] {
    return jsonpath(s, "pod/big", "{.status.conditions[?(@.type==\"PodScheduled\")].reason}") ==
           "Unschedulable";
  }));
  CHECK(jsonpath(s, "pod/big", "{.status.conditions[?(@.type==\"PodScheduled\")].status}") ==
        "False");
  CHECK(jsonpath(s, "pod/big", "{.status.conditions[?(@.type==\"PodScheduled\")].message}") ==
        message);
  CHECK(jsonpath(s, "pod/big", "{.spec.nodeName}").empty());
  REQUIRE(eventually([&] {
    return s.kubectl({"describe", "pod", "big"}).out.find("FailedScheduling") != std::string::npos;
  }));
  auto describe = s.kubectl({"describe", "pod", "big"}).out;
  CHECK_THAT(describe, Catch::Contains("Warning  FailedScheduling") &&
                           Catch::Contains("default-scheduler  " + message));
  CHECK_THAT(jsonpath(s, "events", "{.items[?(@.reason==\"FailedScheduling\")].source.component}"),
             Catch::Contains("default-scheduler"));

  // A node that fits arrives: the waiting pod is placed there at once (not after 5 minutes).
  add_node(s, "n3", "4");
  REQUIRE(eventually([&] { return jsonpath(s, "pod/big", "{.spec.nodeName}") == "n3"; }));
  CHECK(jsonpath(s, "pod/big", "{.status.conditions[?(@.type==\"PodScheduled\")].status}") ==
        "True");

  // A pod for another scheduler is not ours to place, nor to mark.
  s.ok({"apply"}, s.file("other.yaml", pod_yaml("other", "10m", "  schedulerName: mine\n")));
  std::this_thread::sleep_for(2s);
  CHECK(jsonpath(s, "pod/other", "{.spec.nodeName}").empty());
  CHECK(jsonpath(s, "pod/other", "{.status.conditions}").empty());

  // The scheduler holds its Lease.
  CHECK_THAT(s.kubectl({"get", "lease", "kube-scheduler", "-n", "kube-system", "-o",
                        "jsonpath={.spec.holderIdentity}"})
                 .out,
             Catch::Contains("_"));
}

TEST_CASE("a higher-priority pod preempts a lower one") {
  KubectlSandbox s("1.33");
  add_node(s, "p1", "1");
  s.ok({"apply"}, s.file("low.yaml", pod_yaml("low", "800m")));
  REQUIRE(eventually([&] { return jsonpath(s, "pod/low", "{.spec.nodeName}") == "p1"; }));
  s.ok({"create", "priorityclass", "high", "--value=1000"});
  s.ok({"apply"}, s.file("high.yaml", pod_yaml("high", "800m", "  priorityClassName: high\n")));

  // The victim is marked and deleted (gracefully: it is on a node); the preemptor is
  // nominated to its node.
  REQUIRE(
      eventually([&] { return !jsonpath(s, "pod/low", "{.metadata.deletionTimestamp}").empty(); }));
  CHECK(jsonpath(s, "pod/low", "{.status.conditions[?(@.type==\"DisruptionTarget\")].reason}") ==
        "PreemptionByScheduler");
  REQUIRE(
      eventually([&] { return jsonpath(s, "pod/high", "{.status.nominatedNodeName}") == "p1"; }));
  CHECK(jsonpath(s, "pod/high", "{.spec.nodeName}").empty());
  REQUIRE(eventually([&] {
    return s.kubectl({"describe", "pod", "low"}).out.find("Preempted by pod") != std::string::npos;
  }));

  // Its kubelet would now remove it; then the preemptor takes its place.
  // (--force warns on stderr that it does not wait.)
  CHECK(s.kubectl({"delete", "pod", "low", "--grace-period=0", "--force"}).exit_code == 0);
  REQUIRE(eventually([&] { return jsonpath(s, "pod/high", "{.spec.nodeName}") == "p1"; }));
}

TEST_CASE("--kube-scheduler-arg=leader-elect=false schedules without taking the Lease") {
  KubectlSandbox s("1.33", {"--kube-scheduler-arg=leader-elect=false"});
  add_node(s, "n1", "1");
  s.ok({"apply"}, s.file("pod.yaml", pod_yaml("a", "100m")));
  REQUIRE(eventually([&] { return jsonpath(s, "pod/a", "{.spec.nodeName}") == "n1"; }));
  CHECK(s.kubectl({"get", "lease", "-n", "kube-system", "kube-scheduler"}).exit_code != 0);
}

TEST_CASE("--disable-scheduler leaves pods pending") {
  Sandbox box;
  RunningServer server(box, {"--disable-agent", "--disable-scheduler"});
  REQUIRE(server.ready == "READY=1");
  KubectlRunner kubectl{box, kubectl_dir() + "/kubectl.1.33"};
  std::string path = box.path("pod.yaml");
  write_file(path, pod_yaml("idle", "10m"));
  REQUIRE(kubectl({"apply"}, path).exit_code == 0);
  write_file(box.path("node.yaml"), "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n");
  REQUIRE(kubectl({"apply"}, box.path("node.yaml")).exit_code == 0);
  std::this_thread::sleep_for(2s);
  CHECK(kubectl({"get", "pod", "idle", "-o", "jsonpath={.spec.nodeName}"}).out.empty());
  CHECK(kubectl({"get", "lease", "-n", "kube-system", "kube-scheduler"}).exit_code != 0);
}

TEST_CASE("local-path: a claim gets a volume on its pod's node, removed with the claim") {
  KubectlSandbox s("1.33", {"--node-name=n1"});
  CHECK(s.ok({"get", "storageclass", "-o", "name"}) == "storageclass.storage.k8s.io/local-path\n");
  CHECK(jsonpath(
            s, "storageclass",
            "{.items[0].provisioner} {.items[0].volumeBindingMode} "
            "{.items[0].metadata.annotations.storageclass\\.kubernetes\\.io/is-default-class}") ==
        "rancher.io/local-path WaitForFirstConsumer true");
  add_node(s, "n1", "2");
  s.ok({"apply"}, s.file("claim.yaml", R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 2Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers: [{name: c, image: busybox}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
)"));
  // The scheduler picks n1 and tells the claim; the provisioner makes the volume there.
  REQUIRE(eventually([&] { return jsonpath(s, "pvc/data", "{.status.phase}") == "Bound"; }));
  CHECK(jsonpath(s, "pod/app", "{.spec.nodeName}") == "n1");
  CHECK(jsonpath(s, "pvc/data",
                 "{.metadata.annotations.volume\\.kubernetes\\.io/selected-node} "
                 "{.spec.storageClassName}") == "n1 local-path");
  const std::string volume = jsonpath(s, "pvc/data", "{.spec.volumeName}");
  CHECK(volume == "pvc-" + jsonpath(s, "pvc/data", "{.metadata.uid}"));
  const std::string path = jsonpath(s, "pv/" + volume, "{.spec.hostPath.path}");
  CHECK(path == s.box.data_dir() + "/storage/" + volume + "_default_data");
  CHECK(jsonpath(
            s, "pv/" + volume,
            "{.spec.capacity.storage} {.spec.persistentVolumeReclaimPolicy} "
            "{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}") ==
        "2Gi Delete n1");

  // The kubelet would make the directory on first mount; the test does.
  std::filesystem::create_directories(path);
  write_file(path + "/file", "data");
  CHECK(s.kubectl({"delete", "pod", "app", "--grace-period=0", "--force"}).exit_code == 0);
  s.ok({"delete", "pvc", "data"});
  CHECK(eventually([&] { return s.kubectl({"get", "pv", volume}).exit_code == 1; }));
  CHECK_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace k3c

// StatefulSets and DaemonSets driven by the real kubectl: ordered and parallel scaling,
// claims from templates, partitioned rolling updates, rollout history/undo/restart; daemon
// pods per eligible node as nodes come and go, and their rolling update.
//
// There is no scheduler or kubelet in these servers (--disable-agent): play_kubelet() binds
// daemon pods to the node they are pinned to, as the scheduler would, reports pods Running
// and Ready through the status subresource, and finishes the deletion of bound pods, as a
// kubelet would.
#include <catch2/catch.hpp>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) out.push_back(part);
  return out;
}

struct PodRow {
  std::string name, node, phase, deleting, pinned, image, revision;
};

std::vector<PodRow> pods(const KubectlRunner& kubectl, const std::string& selector = "") {
  std::vector<std::string> args = {
      "get", "pods", "-o",
      "jsonpath={range .items[*]}{.metadata.name}|{.spec.nodeName}|{.status.phase}|"
      "{.metadata.deletionTimestamp}|{.spec.affinity.nodeAffinity."
      "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0]."
      "values[0]}|{.spec.containers[0].image}|{.metadata.labels.controller-revision-hash}|"
      "{\"\\n\"}{end}"};
  if (!selector.empty()) args.insert(args.end(), {"-l", selector});
  std::vector<PodRow> out;
  for (const auto& line : lines(kubectl(args).out)) {
    auto f = split(line, '|');
    f.resize(7);
    out.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
  }
  return out;
}

std::set<std::string> names(const std::vector<PodRow>& rows) {
  std::set<std::string> out;
  for (const auto& r : rows) out.insert(r.name);
  return out;
}

// What the scheduler and the kubelets would do for the pods there are now.
void play_kubelet(const KubectlRunner& kubectl, const KubectlSandbox& session) {
  auto nodes = lines(kubectl({"get", "nodes", "-o", "name"}).out);
  std::set<std::string> existing;
  for (const auto& n : nodes) existing.insert(n.substr(n.find('/') + 1));
  for (const auto& pod : pods(kubectl)) {
    if (!pod.deleting.empty()) {
      if (!pod.node.empty())
        kubectl({"delete", "pod", pod.name, "--grace-period=0", "--force", "--wait=false"});
      continue;
    }
    if (pod.node.empty() && !pod.pinned.empty()) {
      if (!existing.count(pod.pinned)) continue;  // nowhere to run
      std::string binding = session.file(
          "binding.json", R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + pod.name +
                              R"("},"target":{"kind":"Node","name":")" + pod.pinned + R"("}})");
      kubectl({"create", "--raw", "/api/v1/namespaces/default/pods/" + pod.name + "/binding", "-f",
               binding});
    }
    if (pod.phase != "Running") {
      kubectl({"patch", "pod", pod.name, "--subresource=status", "--type=merge", "-p",
               R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",)"
               R"("lastTransitionTime":"2026-01-01T00:00:00Z"}]}})"});
    }
  }
}

// What a failed wait leaves in the test's output: the workloads, their pods and events, and
// the server's warnings (a controller's errors are logged there).
void report_state(const KubectlSandbox& session) {
  std::cerr << "---- state when the wait gave up ----\n";
  for (std::vector<std::string> args :
       {std::vector<std::string>{"get", "ds,sts,controllerrevisions", "-o", "wide"},
        {"get", "pods", "-o", "wide", "--show-labels"},
        {"get", "ds", "-o", "jsonpath={range .items[*]}{.metadata.name} {.status}{\"\\n\"}{end}"},
        {"get", "events", "--sort-by=.lastTimestamp"}}) {
    auto r = session.kubectl(args);
    std::cerr << "$ kubectl " << args[0] << " " << args[1] << "\n" << r.out << r.err;
  }
  std::istringstream log(session.server.process.err());
  std::cerr << "---- the server's warnings ----\n";
  for (std::string line; std::getline(log, line);) {
    if (line.find(" warning [") != std::string::npos || line.find(" error [") != std::string::npos)
      std::cerr << line << "\n";
  }
}

// Waits for `done` while playing the kubelet (`step` runs on every round, e.g. to check an
// invariant); false after `rounds` rounds (at least 30 s), with the state reported.
template <typename F, typename S>
bool converge(const KubectlSandbox& session, F done, S step, int rounds = 120) {
  for (int i = 0; i < rounds; ++i) {
    if (done()) return true;
    play_kubelet(session.kubectl, session);
    step();
    std::this_thread::sleep_for(250ms);
  }
  if (done()) return true;
  report_state(session);
  return false;
}
template <typename F>
bool converge(const KubectlSandbox& session, F done) {
  return converge(session, done, [] {});
}

// Waits for `done` without playing the kubelet.
template <typename F>
bool wait_for(F done) {
  return eventually(done, std::chrono::seconds(15));
}

std::string jsonpath(const KubectlRunner& kubectl, const std::string& object,
                     const std::string& path) {
  return kubectl({"get", object, "-o", "jsonpath={" + path + "}"}).out;
}

const char* kWebSet = R"(apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "busybox:1"}]}
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
)";

TEST_CASE("an OrderedReady StatefulSet scales up and down one pod at a time") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  session.ok({"apply", "-f", session.file("web.yaml", kWebSet)});

  // web-0 and its claim come first; nothing more while it is not ready.
  REQUIRE(wait_for([&] { return names(pods(kubectl)) == std::set<std::string>{"web-0"}; }));
  std::this_thread::sleep_for(1s);
  CHECK(names(pods(kubectl)) == std::set<std::string>{"web-0"});
  CHECK(jsonpath(kubectl, "pvc/www-web-0", ".spec.resources.requests.storage") == "1Gi");
  CHECK(jsonpath(kubectl, "pvc/www-web-0", ".metadata.labels.app") == "web");
  CHECK(jsonpath(kubectl, "pod/web-0",
                 ".spec.hostname}/{.spec.subdomain}/{.spec.volumes[0].persistentVolumeClaim."
                 "claimName}/{.metadata.labels.statefulset\\.kubernetes\\.io/pod-name}/"
                 "{.metadata.labels.apps\\.kubernetes\\.io/pod-index") ==
        "web-0/nginx/www-web-0/web-0/0");
  CHECK(jsonpath(kubectl, "pod/web-0", ".metadata.ownerReferences[0].kind") == "StatefulSet");

  // Each pod waits for its predecessor to be ready.
  play_kubelet(kubectl, session);
  REQUIRE(wait_for([&] { return names(pods(kubectl)).count("web-1") == 1; }));
  std::this_thread::sleep_for(500ms);
  CHECK(names(pods(kubectl)).count("web-2") == 0);
  REQUIRE(converge(session, [&] {
    return kubectl({"rollout", "status", "sts/web", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK(session.ok({"rollout", "status", "sts/web"}) ==
        "partitioned roll out complete: 3 new pods have been updated...\n");
  CHECK(lines(kubectl({"get", "pvc", "-o", "name"}).out).size() == 3);
  CHECK_THAT(kubectl({"get", "sts", "web", "--no-headers"}).out, Catch::StartsWith("web   3/3"));
  CHECK(jsonpath(kubectl, "sts/web",
                 ".status.replicas}/{.status.readyReplicas}/{.status.currentReplicas}/"
                 "{.status.updatedReplicas}/{.status.availableReplicas") == "3/3/3/3/3");
  std::string revision = jsonpath(kubectl, "sts/web", ".status.currentRevision");
  CHECK_THAT(revision, Catch::StartsWith("web-"));
  CHECK(jsonpath(kubectl, "sts/web", ".status.updateRevision") == revision);
  for (const auto& pod : pods(kubectl)) CHECK(pod.revision == revision);

  // Scale down: highest ordinal first; claims stay (Retain).
  session.ok({"scale", "sts/web", "--replicas=1"});
  bool out_of_order = false;
  REQUIRE(converge(
      session, [&] { return names(pods(kubectl)) == std::set<std::string>{"web-0"}; },
      [&] {
        auto now = names(pods(kubectl));
        if (now.count("web-2") && !now.count("web-1")) out_of_order = true;
      }));
  CHECK_FALSE(out_of_order);
  CHECK(lines(kubectl({"get", "pvc", "-o", "name"}).out).size() == 3);
  REQUIRE(
      converge(session, [&] { return jsonpath(kubectl, "sts/web", ".status.replicas") == "1"; }));

  // Up again: the same names and claims come back.
  session.ok({"scale", "sts/web", "--replicas=3"});
  REQUIRE(converge(session, [&] { return pods(kubectl).size() == 3; }));
  CHECK(lines(kubectl({"get", "pvc", "-o", "name"}).out).size() == 3);
}

TEST_CASE("a Parallel StatefulSet does not wait, and its claims follow the retention policy") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  std::string yaml = kWebSet;
  yaml.replace(yaml.find("  replicas: 3"), std::string("  replicas: 3").size(),
               "  replicas: 3\n  podManagementPolicy: Parallel\n  ordinals: {start: 1}\n"
               "  persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Delete}");
  session.ok({"apply", "-f", session.file("web.yaml", yaml)});
  // All three at once, none of them ready; ordinals from 1.
  REQUIRE(wait_for([&] {
    return names(pods(kubectl)) == std::set<std::string>{"web-1", "web-2", "web-3"};
  }));
  for (const auto& pod : pods(kubectl)) CHECK(pod.phase == "Pending");
  REQUIRE(wait_for([&] { return lines(kubectl({"get", "pvc", "-o", "name"}).out).size() == 3; }));
  // whenDeleted: Delete: the set owns its claims.
  CHECK(jsonpath(kubectl, "pvc/www-web-1", ".metadata.ownerReferences[0].kind") == "StatefulSet");

  // whenScaled: Delete: the claims of the pods scaled away go with them.
  session.ok({"scale", "sts/web", "--replicas=1"});
  REQUIRE(wait_for([&] { return names(pods(kubectl)) == std::set<std::string>{"web-1"}; }));
  REQUIRE(wait_for([&] {
    return lines(kubectl({"get", "pvc", "-o", "name"}).out) ==
           std::vector<std::string>{"persistentvolumeclaim/www-web-1"};
  }));
  // whenDeleted: Delete: the last claim goes with the set.
  session.ok({"delete", "sts", "web"});
  REQUIRE(wait_for([&] { return kubectl({"get", "pvc", "-o", "name"}).out.empty(); }));
  REQUIRE(wait_for([&] { return pods(kubectl).empty(); }));
  CHECK(kubectl({"get", "controllerrevisions", "-o", "name"}).out.empty());
}

TEST_CASE("a StatefulSet rolls out by partition, and rolls back and restarts through kubectl") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  session.ok({"apply", "-f", session.file("web.yaml", kWebSet)});
  REQUIRE(converge(session, [&] {
    return kubectl({"rollout", "status", "sts/web", "--timeout=1s"}).exit_code == 0;
  }));
  std::string first = jsonpath(kubectl, "sts/web", ".status.currentRevision");

  session.ok({"patch", "sts", "web", "-p",
              R"({"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}})"});
  session.ok({"set", "image", "sts/web", "c=busybox:2"});
  // Never more than one pod down (maxUnavailable 1).
  auto ready_pods = [&] {
    int n = 0;
    for (const auto& p : pods(kubectl)) n += p.phase == "Running" && p.deleting.empty();
    return n;
  };
  bool too_few = false;
  auto images = [&] {
    std::string out;
    for (const auto& p : pods(kubectl)) out += p.name + "=" + p.image + " ";
    return out;
  };
  REQUIRE(converge(
      session, [&] { return images() == "web-0=busybox:1 web-1=busybox:1 web-2=busybox:2 "; },
      [&] { too_few = too_few || ready_pods() < 2; }));
  REQUIRE(converge(session, [&] {
    return kubectl({"rollout", "status", "sts/web", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK(session.ok({"rollout", "status", "sts/web"}) ==
        "partitioned roll out complete: 1 new pods have been updated...\n");
  std::string second = jsonpath(kubectl, "sts/web", ".status.updateRevision");
  CHECK(second != first);
  CHECK(jsonpath(kubectl, "sts/web", ".status.currentRevision") == first);
  CHECK(jsonpath(kubectl, "pod/web-2", ".metadata.labels.controller-revision-hash") == second);
  CHECK(jsonpath(kubectl, "pod/web-0", ".metadata.labels.controller-revision-hash") == first);

  session.ok({"patch", "sts", "web", "-p",
              R"({"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}})"});
  REQUIRE(converge(
      session, [&] { return images() == "web-0=busybox:2 web-1=busybox:2 web-2=busybox:2 "; },
      [&] { too_few = too_few || ready_pods() < 2; }));
  REQUIRE(converge(
      session, [&] { return jsonpath(kubectl, "sts/web", ".status.currentRevision") == second; }));
  CHECK_FALSE(too_few);

  // History as kubectl reads it: ControllerRevisions with the template patch in .data.
  for (const char* version : {"1.27", "1.33"}) {
    KubectlRunner other{session.box, kubectl_dir() + "/kubectl." + version};
    INFO("kubectl " << version);
    CHECK(other({"rollout", "history", "sts/web"}).out ==
          "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n");
  }
  CHECK_THAT(session.ok({"rollout", "history", "sts/web", "--revision=1"}),
             Catch::Contains("Image:\tbusybox:1"));

  // Undo brings revision 1's template back as revision 3.
  CHECK(session.ok({"rollout", "undo", "sts/web"}) == "statefulset.apps/web rolled back\n");
  REQUIRE(converge(session, [&] {
    return images() == "web-0=busybox:1 web-1=busybox:1 web-2=busybox:1 " &&
           kubectl({"rollout", "status", "sts/web", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK(jsonpath(kubectl, "sts/web", ".status.updateRevision") == first);
  CHECK_THAT(session.ok({"rollout", "history", "sts/web"}),
             Catch::EndsWith("2         <none>\n3         <none>\n\n"));
  CHECK(lines(kubectl({"get", "controllerrevisions", "-o", "name"}).out).size() == 2);

  // Restart: a new template annotation, so every pod is replaced.
  session.ok({"rollout", "restart", "sts/web"});
  REQUIRE(converge(session, [&] {
    auto rows = pods(kubectl);
    std::string update = jsonpath(kubectl, "sts/web", ".status.updateRevision");
    bool all = rows.size() == 3 && update != first;
    for (const auto& p : rows) all = all && p.revision == update;
    return all && kubectl({"rollout", "status", "sts/web", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK_THAT(session.ok({"rollout", "history", "sts/web"}), Catch::Contains("4         <none>"));
}

void create_node(const KubectlSandbox& session, const std::string& name,
                 const std::string& taints = "") {
  std::string yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\n";
  if (!taints.empty()) yaml += "spec:\n  taints: " + taints + "\n";
  session.ok({"create", "-f", session.file(name + ".yaml", yaml)});
}

TEST_CASE("a DaemonSet runs one pod per eligible node as nodes come and go") {
  // The test's nodes never send heartbeats: without long grace periods the node lifecycle
  // controller would mark them Unknown (and their pods not Ready) midway.
  KubectlSandbox session("1.33", {"--kube-controller-manager-arg=node-monitor-grace-period=1h",
                                  "--kube-controller-manager-arg=node-startup-grace-period=1h"});
  const KubectlRunner& kubectl = session.kubectl;
  for (const char* n : {"n1", "n2", "n3"}) create_node(session, n);
  create_node(session, "db", "[{key: dedicated, value: db, effect: NoSchedule}]");
  create_node(session, "cordoned", "[{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]");
  session.ok({"apply", "-f", session.file("ds.yaml", R"(apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: "busybox:1"}]}
)")});
  auto placed = [&] {
    std::set<std::string> out;
    for (const auto& p : pods(kubectl)) {
      if (p.deleting.empty()) out.insert(p.pinned);
    }
    return out;
  };
  using Nodes = std::set<std::string>;
  // The tainted node is skipped; the cordoned one is not (daemon pods tolerate that).
  REQUIRE(converge(session, [&] {
    return placed() == Nodes{"cordoned", "n1", "n2", "n3"} &&
           kubectl({"rollout", "status", "ds/agent", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK(session.ok({"rollout", "status", "ds/agent"}) ==
        "daemon set \"agent\" successfully rolled out\n");
  CHECK(jsonpath(kubectl, "ds/agent",
                 ".status.desiredNumberScheduled}/{.status.currentNumberScheduled}/"
                 "{.status.numberReady}/{.status.updatedNumberScheduled}/"
                 "{.status.numberAvailable}/{.status.numberMisscheduled") == "4/4/4/4/4/0");
  CHECK_THAT(kubectl({"get", "ds", "agent", "--no-headers"}).out,
             Catch::StartsWith("agent   4     4     4     4     4     <none>"));
  for (const auto& p : pods(kubectl)) CHECK(p.node == p.pinned);  // bound where pinned
  auto pod = pods(kubectl).at(0).name;
  CHECK(jsonpath(kubectl, "pod/" + pod, ".spec.tolerations[*].key") ==
        "node.kubernetes.io/not-ready node.kubernetes.io/unreachable "
        "node.kubernetes.io/disk-pressure node.kubernetes.io/memory-pressure "
        "node.kubernetes.io/pid-pressure node.kubernetes.io/unschedulable");

  // A new node gets a pod; a deleted node's pod goes (the pod garbage collector removes it
  // once the node has stayed gone for 40 s).
  create_node(session, "n4");
  session.ok({"delete", "node", "n2"});
  REQUIRE(converge(
      session,
      [&] {
        return placed() == Nodes{"cordoned", "n1", "n3", "n4"} &&
               jsonpath(kubectl, "ds/agent", ".status.numberReady") == "4";
      },
      [] {}, 400));
  // A NoExecute taint the pod does not tolerate evicts it.
  session.ok({"taint", "node", "cordoned", "evict=now:NoExecute"});
  REQUIRE(converge(session, [&] { return placed() == Nodes{"n1", "n3", "n4"}; }));
  REQUIRE(converge(session, [&] {
    return jsonpath(kubectl, "ds/agent", ".status.desiredNumberScheduled") == "3";
  }));

  // Rolling update: one node at a time without an available pod (maxUnavailable 1).
  session.ok({"set", "image", "ds/agent", "c=busybox:2"});
  bool too_few = false;
  auto updated = [&] {
    auto rows = pods(kubectl);
    int n = 0;
    for (const auto& p : rows) n += p.image == "busybox:2" && p.deleting.empty();
    return rows.size() == 3 && n == 3;
  };
  REQUIRE(converge(
      session,
      [&] {
        return updated() &&
               kubectl({"rollout", "status", "ds/agent", "--timeout=1s"}).exit_code == 0;
      },
      [&] {
        int running = 0;
        for (const auto& p : pods(kubectl)) running += p.phase == "Running" && p.deleting.empty();
        too_few = too_few || running < 2;
      }));
  CHECK_FALSE(too_few);
  CHECK(session.ok({"rollout", "history", "ds/agent"}) ==
        "daemonset.apps/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n");
  CHECK(session.ok({"rollout", "undo", "ds/agent"}) == "daemonset.apps/agent rolled back\n");
  REQUIRE(converge(session, [&] {
    auto rows = pods(kubectl);
    bool back = rows.size() == 3;
    for (const auto& p : rows) back = back && p.image == "busybox:1";
    return back && kubectl({"rollout", "status", "ds/agent", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK_THAT(session.ok({"rollout", "history", "ds/agent"}),
             Catch::EndsWith("2         <none>\n3         <none>\n\n"));
}

}  // namespace
}  // namespace k3c

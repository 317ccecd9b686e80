// The controller manager driven by the real kubectl: deployments roll out, roll back and
// scale; delete propagation leaves what upstream leaves; namespaces empty and go; every
// namespace gets its default ServiceAccount and root CA ConfigMap.
//
// There is no kubelet yet (nor hollow nodes): `mark_ready` plays the kubelet's part by
// reporting each pod Running and Ready through the status subresource, as a kubelet would.
#include <catch2/catch.hpp>
#include <iterator>
#include <sstream>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

// Reports every pod not yet ready as Running and Ready.
void mark_ready(const KubectlRunner& kubectl, const std::string& ns = "default") {
  auto pods = kubectl({"get", "pods", "-n", ns, "-o",
                       "jsonpath={range .items[?(@.status.phase!=\"Running\")]}{.metadata.name}"
                       "{\"\\n\"}{end}"});
  for (const auto& pod : lines(pods.out)) {
    kubectl({"patch", "pod", pod, "-n", ns, "--subresource=status", "--type=merge", "-p",
             R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True",)"
             R"("lastTransitionTime":"2026-01-01T00:00:00Z"}]}})"});
  }
}

// Waits for `done` while playing the kubelet; false after 20 s.
template <typename F>
bool converge(const KubectlRunner& kubectl, F done) {
  for (int i = 0; i < 80; ++i) {
    if (done()) return true;
    mark_ready(kubectl);
    std::this_thread::sleep_for(250ms);
  }
  return done();
}

int count(const KubectlRunner& kubectl, const std::vector<std::string>& args) {
  std::vector<std::string> a = {"get"};
  a.insert(a.end(), args.begin(), args.end());
  a.insert(a.end(), {"-o", "name"});
  return static_cast<int>(lines(kubectl(a).out).size());
}

TEST_CASE("deployments roll out, roll back and scale through kubectl") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  const KubectlRunner& kubectl = session.kubectl;

  REQUIRE(kubectl({"create", "deployment", "web", "--image=busybox:1", "--replicas=4"}).exit_code ==
          0);
  REQUIRE(converge(kubectl, [&] { return count(kubectl, {"pods"}) == 4; }));
  REQUIRE(converge(kubectl, [&] {
    return kubectl({"rollout", "status", "deploy/web", "--timeout=1s"}).exit_code == 0;
  }));
  CHECK(kubectl({"rollout", "status", "deploy/web"}).out ==
        "deployment \"web\" successfully rolled out\n");
  auto table = kubectl({"get", "deploy", "web", "--no-headers"});
  CHECK_THAT(table.out, Catch::StartsWith("web   4/4   4     4     "));
  CHECK(count(kubectl, {"rs"}) == 1);
  CHECK(count(kubectl, {"sa", "default"}) == 1);
  CHECK(count(kubectl, {"cm", "kube-root-ca.crt"}) == 1);

  SECTION("a new image rolls out within maxSurge and maxUnavailable, then undo") {
    REQUIRE(kubectl({"set", "image", "deploy/web", "busybox=busybox:2"}).exit_code == 0);
    // 4 replicas, 25%/25%: never more than 5 pods, never fewer than 3 available.
    bool rolled = false;
    for (int i = 0; i < 80 && !rolled; ++i) {
      auto pods = lines(kubectl({"get", "pods", "-o", "name"}).out);
      CHECK(pods.size() <= 5);
      auto available =
          kubectl({"get", "deploy", "web", "-o", "jsonpath={.status.availableReplicas}"});
      CHECK(std::stoi(available.out.empty() ? "0" : available.out) >= 3);
      rolled = kubectl({"rollout", "status", "deploy/web", "--timeout=1s"}).exit_code == 0;
      mark_ready(kubectl);
      std::this_thread::sleep_for(250ms);
    }
    REQUIRE(rolled);
    CHECK(kubectl({"get", "deploy", "web", "-o",
                   "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}"})
              .out == "2");
    auto history = kubectl({"rollout", "history", "deploy/web"});
    CHECK_THAT(history.out, Catch::Contains("REVISION  CHANGE-CAUSE\n1         <none>\n2"));
    auto describe = kubectl({"describe", "deploy", "web"});
    CHECK_THAT(describe.out, Catch::Contains("deployment-controller  Scaled up replica set web-"));

    REQUIRE(kubectl({"rollout", "undo", "deploy/web"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] {
      return kubectl({"rollout", "status", "deploy/web", "--timeout=1s"}).exit_code == 0;
    }));
    CHECK(kubectl(
              {"get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"})
              .out == "busybox:1");
    // The first ReplicaSet came back as revision 3: still two sets, no third.
    CHECK(count(kubectl, {"rs"}) == 2);
    CHECK_THAT(kubectl({"rollout", "history", "deploy/web"}).out,
               Catch::Contains("2         <none>\n3         <none>"));
  }

  SECTION("scale up and down") {
    REQUIRE(kubectl({"scale", "deploy/web", "--replicas=6"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] { return count(kubectl, {"pods"}) == 6; }));
    REQUIRE(kubectl({"scale", "deploy/web", "--replicas=2"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] { return count(kubectl, {"pods"}) == 2; }));
    REQUIRE(converge(kubectl, [&] {
      return kubectl({"get", "deploy", "web", "-o", "jsonpath={.status.replicas}"}).out == "2";
    }));
  }

  SECTION("pause and resume") {
    REQUIRE(kubectl({"rollout", "pause", "deploy/web"}).exit_code == 0);
    REQUIRE(kubectl({"set", "image", "deploy/web", "busybox=busybox:3"}).exit_code == 0);
    std::this_thread::sleep_for(1s);
    CHECK(count(kubectl, {"rs"}) == 1);
    REQUIRE(kubectl({"rollout", "resume", "deploy/web"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] {
      return kubectl({"rollout", "status", "deploy/web", "--timeout=1s"}).exit_code == 0;
    }));
    CHECK(count(kubectl, {"rs"}) == 2);
  }
}

TEST_CASE("delete propagation and namespace deletion through kubectl") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  const KubectlRunner& kubectl = session.kubectl;
  for (const char* name : {"bg", "fg", "orphan"}) {
    REQUIRE(kubectl({"create", "deployment", name, "--image=busybox", "--replicas=2"}).exit_code ==
            0);
  }
  REQUIRE(converge(kubectl, [&] { return count(kubectl, {"pods"}) == 6; }));
  auto pods_of = [&](const std::string& app) {
    return count(kubectl, {"pods", "-l", "app=" + app});
  };

  SECTION("background: the deployment goes, then its ReplicaSet and pods") {
    REQUIRE(kubectl({"delete", "deploy", "bg"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] { return pods_of("bg") == 0; }));
    CHECK(count(kubectl, {"rs", "-l", "app=bg"}) == 0);
  }
  SECTION("foreground: the deployment waits for its dependents") {
    auto deleted = kubectl({"delete", "deploy", "fg", "--cascade=foreground"});
    REQUIRE(deleted.exit_code == 0);
    CHECK(pods_of("fg") == 0);
    CHECK(count(kubectl, {"rs", "-l", "app=fg"}) == 0);
    CHECK(kubectl({"get", "deploy", "fg"}).exit_code == 1);
  }
  SECTION("orphan: the ReplicaSet and pods stay, without the owner reference") {
    REQUIRE(kubectl({"delete", "deploy", "orphan", "--cascade=orphan"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] { return kubectl({"get", "deploy", "orphan"}).exit_code == 1; }));
    CHECK(pods_of("orphan") == 2);
    CHECK(kubectl({"get", "rs", "-l", "app=orphan", "-o",
                   "jsonpath={.items[0].metadata.ownerReferences}"})
              .out == "");
  }
  SECTION("a namespace empties and goes; a new one gets its account and CA") {
    REQUIRE(kubectl({"create", "namespace", "scratch"}).exit_code == 0);
    REQUIRE(converge(kubectl, [&] { return count(kubectl, {"sa", "-n", "scratch"}) == 1; }));
    CHECK(count(kubectl, {"cm", "kube-root-ca.crt", "-n", "scratch"}) == 1);
    REQUIRE(kubectl({"create", "deployment", "x", "-n", "scratch", "--image=busybox"}).exit_code ==
            0);
    REQUIRE(kubectl({"create", "configmap", "c", "-n", "scratch"}).exit_code == 0);
    auto deleted = kubectl({"delete", "namespace", "scratch"});
    CHECK(deleted.exit_code == 0);
    CHECK(deleted.out == "namespace \"scratch\" deleted\n");
    CHECK(kubectl({"get", "namespace", "scratch"}).exit_code == 1);
  }
}

TEST_CASE("a ReplicationController keeps its pods") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  write_file(session.box.path("rc.yaml"),
             "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: rc}\n"
             "spec:\n  replicas: 3\n  template:\n    metadata: {labels: {app: rc}}\n"
             "    spec: {containers: [{name: c, image: busybox}]}\n");
  REQUIRE(kubectl({"apply", "-f", session.box.path("rc.yaml")}).exit_code == 0);
  REQUIRE(converge(kubectl, [&] { return count(kubectl, {"pods", "-l", "app=rc"}) == 3; }));
  auto victim = lines(kubectl({"get", "pods", "-l", "app=rc", "-o", "name"}).out).at(0);
  REQUIRE(kubectl({"delete", victim, "--wait=false"}).exit_code == 0);
  REQUIRE(converge(kubectl, [&] {
    return count(kubectl, {"pods", "-l", "app=rc"}) == 3 && kubectl({"get", victim}).exit_code == 1;
  }));
  REQUIRE(converge(kubectl, [&] {
    return kubectl({"get", "rc", "rc", "-o", "jsonpath={.status.readyReplicas}"}).out == "3";
  }));
}

TEST_CASE("services get Endpoints and EndpointSlices of the pods they select") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  session.ok({"apply"}, session.file("svc.yaml", R"(apiVersion: v1
kind: Service
metadata: {name: web, labels: {tier: front}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: v1
kind: Service
metadata: {name: manual}
spec:
  ports: [{port: 80}]
)"));
  // The placeholder slice comes first; a selector-less Service gets nothing.
  REQUIRE(converge(kubectl, [&] {
    return count(kubectl, {"endpointslices", "-l", "kubernetes.io/service-name=web"}) == 1;
  }));
  CHECK(kubectl({"get", "endpoints", "manual"}).exit_code == 1);
  CHECK(count(kubectl, {"endpointslices", "-l", "kubernetes.io/service-name=manual"}) == 0);

  auto pod_yaml = [](const std::string& name) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           ", labels: {app: web}}\nspec:\n  containers: [{name: c, image: busybox, ports: "
           "[{name: http, containerPort: 8080}]}]\n";
  };
  for (const std::string name : {"web-1", "web-2"}) {
    session.ok({"apply"}, session.file(name + ".yaml", pod_yaml(name)));
  }
  auto set_status = [&](const std::string& name, const std::string& ip, bool ready) {
    kubectl({"patch", "pod", name, "--subresource=status", "--type=merge", "-p",
             R"({"status":{"phase":"Running","podIP":")" + ip + R"(","podIPs":[{"ip":")" + ip +
                 R"("}],"conditions":[{"type":"Ready","status":")" + (ready ? "True" : "False") +
                 R"("}]}})"});
  };
  set_status("web-1", "10.42.0.11", true);
  set_status("web-2", "10.42.0.12", false);
  REQUIRE(converge(kubectl, [&] {
    return kubectl({"get", "endpoints", "web", "-o", "jsonpath={.subsets[0].addresses[*].ip}"})
               .out == "10.42.0.11";
  }));
  CHECK(kubectl({"get", "endpoints", "web", "-o",
                 "jsonpath={.subsets[0].notReadyAddresses[*].ip} {.subsets[0].ports[0].port} "
                 "{.metadata.labels.tier}"})
            .out == "10.42.0.12 8080 front");
  CHECK_THAT(kubectl({"get", "endpoints", "web"}).out, Catch::Contains("10.42.0.11:8080"));
  auto describe = kubectl({"describe", "service", "web"}).out;
  const size_t endpoints_line = describe.find("\nEndpoints:");
  REQUIRE(endpoints_line != std::string::npos);
  CHECK(describe.substr(endpoints_line, describe.find('\n', endpoints_line + 1) - endpoints_line)
            .ends_with(" 10.42.0.11:8080"));
  auto slice = [&](const std::string& path) {
    return kubectl({"get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o",
                    "jsonpath={.items[0]" + path + "}"})
        .out;
  };
  REQUIRE(converge(kubectl,
                   [&] { return slice(".endpoints[*].addresses[0]") == "10.42.0.11 10.42.0.12"; }));
  CHECK(slice(".endpoints[*].conditions.ready") == "true false");
  CHECK(slice(".ports[0].port") == "8080");
  CHECK(slice(".metadata.ownerReferences[0].kind") == "Service");
  CHECK(slice(".metadata.labels.endpointslice\\.kubernetes\\.io/managed-by") ==
        "endpointslice-controller.k8s.io");

  // Settled: no write loop (the versions stay put).
  const std::string versions = kubectl({"get", "endpoints,endpointslices", "-o",
                                        "jsonpath={.items[*].metadata.resourceVersion}"})
                                   .out;
  std::this_thread::sleep_for(1500ms);
  CHECK(kubectl({"get", "endpoints,endpointslices", "-o",
                 "jsonpath={.items[*].metadata.resourceVersion}"})
            .out == versions);

  // A pod that goes away leaves; the Service's deletion takes both objects with it.
  REQUIRE(kubectl({"delete", "pod", "web-1", "--grace-period=0", "--force"}).exit_code == 0);
  REQUIRE(converge(kubectl, [&] {
    return kubectl({"get", "endpoints", "web", "-o", "jsonpath={.subsets[*].addresses}"})
        .out.empty();
  }));
  REQUIRE(kubectl({"delete", "service", "web"}).exit_code == 0);
  REQUIRE(converge(kubectl, [&] {
    return kubectl({"get", "endpoints", "web"}).exit_code == 1 &&
           count(kubectl, {"endpointslices", "-l", "kubernetes.io/service-name=web"}) == 0;
  }));
}

TEST_CASE("a PodDisruptionBudget counts healthy pods and guards evictions") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  REQUIRE(kubectl({"create", "deployment", "web", "--image=busybox", "--replicas=3"}).exit_code ==
          0);
  REQUIRE(converge(kubectl, [&] {
    return kubectl({"get", "deploy", "web", "-o", "jsonpath={.status.readyReplicas}"}).out == "3";
  }));
  // maxUnavailable counts against the Deployment's replicas (found through the ReplicaSet).
  session.ok({"create", "pdb", "web", "--selector=app=web", "--max-unavailable=1"});
  auto budget = [&] {
    return kubectl({"get", "pdb", "web", "-o",
                    "jsonpath={.status.expectedPods}/{.status.desiredHealthy}/"
                    "{.status.currentHealthy}/{.status.disruptionsAllowed}/"
                    "{.status.conditions[0].reason}"})
        .out;
  };
  REQUIRE(eventually([&] { return budget() == "3/2/3/1/SufficientPods"; }));
  auto row = lines(session.ok({"get", "pdb", "web", "--no-headers"})).at(0);
  std::istringstream columns(row);
  std::vector<std::string> cells{std::istream_iterator<std::string>(columns), {}};
  CHECK(cells.size() == 5);
  CHECK(std::vector<std::string>(cells.begin(), cells.begin() + 4) ==
        std::vector<std::string>{"web", "N/A", "1", "1"});

  // One eviction is allowed; the next, before a replacement is Ready, is refused.
  auto pods = lines(kubectl({"get", "pods", "-l", "app=web", "-o", "name"}).out);
  REQUIRE(pods.size() == 3);
  auto evict = [&](const std::string& pod) {
    std::string name = pod.substr(pod.find('/') + 1);
    std::string file = session.file("eviction-" + name + ".json",
                                    R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":)"
                                    R"({"name":")" +
                                        name + R"("}})");
    return kubectl(
        {"create", "--raw", "/api/v1/namespaces/default/pods/" + name + "/eviction", "-f", file});
  };
  auto first = evict(pods[0]);
  CHECK(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains(R"("status":"Success")"));
  auto second = evict(pods[1]);
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.err,
             Catch::Contains("Cannot evict pod as it would violate the pod's disruption budget."));
  CHECK(eventually([&] { return budget().rfind("3/2/2/0/InsufficientPods", 0) == 0; }));
  // The replacement becomes Ready: one disruption is allowed again.
  CHECK(converge(kubectl, [&] { return budget() == "3/2/3/1/SufficientPods"; }));
}

TEST_CASE(
    "a HorizontalPodAutoscaler keeps its target within min and max, and says it has no "
    "metrics") {
  // kubectl 1.27 writes autoscaling/v1, 1.33 autoscaling/v2.
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(
      version, {"--kube-controller-manager-arg=horizontal-pod-autoscaler-sync-period=1s"});
  const KubectlRunner& kubectl = session.kubectl;
  session.ok({"create", "deployment", "web", "--image=busybox", "--replicas=1"});
  session.ok({"autoscale", "deployment", "web", "--min=2", "--max=4", "--cpu-percent=60"});
  auto replicas = [&] {
    return kubectl({"get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"}).out;
  };
  CHECK(eventually([&] { return replicas() == "2"; }));  // raised to min
  session.ok({"scale", "deployment", "web", "--replicas=9"});
  CHECK(eventually([&] { return replicas() == "4"; }));  // lowered to max
  // Stored as autoscaling/v2 whichever version wrote it, and served in both as upstream
  // converts: v1 has the CPU target in its spec and v2's conditions in an annotation.
  const std::string hpa = "horizontalpodautoscalers.v2.autoscaling";
  CHECK(eventually([&] {
    return kubectl({"get", hpa, "web", "-o",
                    "jsonpath={.status.currentReplicas}/{.status.desiredReplicas}"})
               .out == "4/4";
  }));
  CHECK(kubectl({"get", hpa, "web", "-o", "jsonpath={.apiVersion} {.spec.metrics[0].resource.name} "
                 "{.spec.metrics[0].resource.target.averageUtilization}"})
            .out == "autoscaling/v2 cpu 60");
  CHECK(kubectl({"get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o",
                 "jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage} "
                 "{.status.currentReplicas}"})
            .out == "autoscaling/v1 60 4");
  CHECK(eventually([&] {
    return kubectl({"get", "horizontalpodautoscalers.v1.autoscaling", "web", "-o",
                    "jsonpath={.metadata.annotations.autoscaling\\.alpha\\.kubernetes\\.io/"
                    "conditions}"})
               .out.find("\"ScalingActive\"") != std::string::npos;
  }));
  // A v1 update keeps what only v2 has (the conditions ride along in the annotation).
  session.ok({"patch", "horizontalpodautoscalers.v1.autoscaling", "web", "--type=merge", "-p",
              R"({"spec":{"maxReplicas":5}})"});
  CHECK(kubectl({"get", hpa, "web", "-o", "jsonpath={.spec.maxReplicas} "
                 "{.status.conditions[?(@.type==\"AbleToScale\")].status}"})
            .out == "5 True");
  auto events = session.ok({"get", "events", "--field-selector",
                            "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web",
                            "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}"});
  CHECK_THAT(events, Catch::Contains("SuccessfulRescale: New size: 2; reason: Current number of "
                                     "replicas below Spec.MinReplicas"));
  CHECK_THAT(events, Catch::Contains("SuccessfulRescale: New size: 4; reason: Current number of "
                                     "replicas above Spec.MaxReplicas"));
  // Within range there is no metric to scale by: an honest condition and event, no guess.
  CHECK(eventually([&] {
    return kubectl({"get", "events", "--field-selector", "reason=FailedComputeMetricsReplicas",
                    "-o", "name"})
               .out.size() > 0;
  }));
  {
    CHECK(eventually([&] {
      return kubectl({"get", hpa, "web", "-o",
                      "jsonpath={.status.conditions[?(@.type==\"ScalingActive\")].reason}"})
                 .out == "FailedGetResourceMetric";
    }));
    CHECK_THAT(kubectl({"get", hpa, "web", "-o",
                        "jsonpath={.status.conditions[?(@.type==\"ScalingActive\")].message}"})
                   .out,
               Catch::Contains("failed to get cpu utilization: the metrics APIs"));
    CHECK_THAT(session.ok({"describe", "hpa", "web"}),
               Catch::Matches(R"([\s\S]*ScalingActive +False +FailedGetResourceMetric[\s\S]*)"));
  }
}

TEST_CASE("EndpointSlices mirror a selector-less Service's Endpoints and carry node zones") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  session.ok({"apply"}, session.file("ext.yaml", R"(apiVersion: v1
kind: Service
metadata: {name: ext}
spec:
  ports: [{name: sql, port: 5432}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: ext, labels: {team: db}}
subsets:
- addresses: [{ip: 10.9.0.2}, {ip: 10.9.0.1, hostname: primary}]
  notReadyAddresses: [{ip: 10.9.0.3}]
  ports: [{name: sql, port: 5432}]
)"));
  auto mirrored = [&](const std::string& path) {
    return kubectl(
               {"get", "endpointslices", "-l",
                "endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io",
                "-o", "jsonpath=" + path})
        .out;
  };
  REQUIRE(eventually([&] { return !mirrored("{.items[*].metadata.name}").empty(); }));
  CHECK(mirrored("{.items[0].endpoints[*].addresses[0]}") == "10.9.0.2 10.9.0.1 10.9.0.3");
  CHECK(mirrored("{.items[0].endpoints[*].conditions.ready}") == "true true false");
  CHECK(mirrored("{.items[0].endpoints[1].hostname}") == "primary");
  CHECK(mirrored("{.items[0].metadata.labels.team}/{.items[0].metadata.labels.kubernetes\\.io/"
                 "service-name}/{.items[0].metadata.ownerReferences[0].kind}") ==
        "db/ext/Endpoints");
  CHECK(mirrored("{.items[0].ports[0].port}") == "5432");
  // Opting out takes the mirror away.
  session.ok({"label", "endpoints", "ext", "endpointslice.kubernetes.io/skip-mirror=true"});
  CHECK(eventually([&] { return mirrored("{.items[*].metadata.name}").empty(); }));

  // A selected pod's endpoint carries the zone of its node.
  session.ok({"apply"}, session.file("zoned.yaml", R"(apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: zone-a}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, labels: {app: web}}
spec:
  nodeName: n1
  containers: [{name: c, image: busybox}]
)"));
  session.ok({"patch", "pod", "web-0", "--subresource=status", "--type=merge", "-p",
              R"({"status":{"phase":"Running","podIP":"10.42.0.5","conditions":[{"type":"Ready",)"
              R"("status":"True"}]}})"});
  CHECK(eventually([&] {
    return kubectl({"get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o",
                    "jsonpath={.items[0].endpoints[0].zone}"})
               .out == "zone-a";
  }));
}

TEST_CASE("claims bind to the smallest fitting volume; volumes of deleted claims are released") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  session.ok({"apply"}, session.file("volumes.yaml", R"(apiVersion: v1
kind: PersistentVolume
metadata: {name: small}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp/k3c-test-small}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: large}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Delete
  hostPath: {path: /tmp/k3c-test-large}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 500Mi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: huge}
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 100Gi}}
)"));
  auto get = [&](const std::vector<std::string>& what, const std::string& path) {
    std::vector<std::string> args = {"get"};
    args.insert(args.end(), what.begin(), what.end());
    args.insert(args.end(), {"-o", "jsonpath=" + path});
    return kubectl(args).out;
  };
  REQUIRE(eventually([&] { return get({"pvc", "data"}, "{.status.phase}") == "Bound"; }));
  CHECK(get({"pvc", "data"}, "{.spec.volumeName} {.status.capacity.storage}") == "small 1Gi");
  CHECK(get({"pv", "small"}, "{.status.phase} {.spec.claimRef.name}") == "Bound data");
  CHECK(get({"pvc", "data"}, "{.metadata.annotations.pv\\.kubernetes\\.io/bind-completed}") ==
        "yes");
  // Nothing fits the large claim: Pending, with upstream's event.
  CHECK(get({"pvc", "huge"}, "{.status.phase}") == "Pending");
  CHECK(eventually([&] {
    return kubectl({"describe", "pvc", "huge"})
               .out.find(
                   "no persistent volumes available for this claim and no storage class "
                   "is set") != std::string::npos;
  }));
  CHECK(get({"pv", "large"}, "{.status.phase}") == "Available");

  // Retain: the volume of a deleted claim is Released.
  session.ok({"delete", "pvc", "data"});
  CHECK(eventually([&] { return get({"pv", "small"}, "{.status.phase}") == "Released"; }));
  // Delete: k3c has no volume plugin to delete the data, and says so.
  session.ok({"apply"}, session.file("claim2.yaml", R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: big}
spec:
  storageClassName: ""
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 2Gi}}
)"));
  REQUIRE(eventually([&] { return get({"pvc", "big"}, "{.spec.volumeName}") == "large"; }));
  session.ok({"delete", "pvc", "big"});
  CHECK(eventually([&] { return get({"pv", "large"}, "{.status.phase}") == "Failed"; }));
  CHECK_THAT(get({"pv", "large"}, "{.status.message}"),
             Catch::Contains("no volume plugin matched"));
}

TEST_CASE("DELETE without a body takes gracePeriodSeconds from the query") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  // Bound to a node (none runs here): deleting it is graceful unless the grace is 0.
  for (const char* name : {"quick", "graceful"}) {
    REQUIRE(kubectl({"run", name, "--image=busybox", "--restart=Never",
                     R"(--overrides={"spec":{"nodeName":"node-x"}})"})
                .exit_code == 0);
  }
  const std::string pods = "/api/v1/namespaces/default/pods/";
  REQUIRE(kubectl({"delete", "--raw", pods + "quick?gracePeriodSeconds=0"}).exit_code == 0);
  CHECK(kubectl({"get", "pod", "quick"}).exit_code == 1);
  REQUIRE(kubectl({"delete", "--raw", pods + "graceful"}).exit_code == 0);
  CHECK(kubectl({"get", "pod", "graceful", "-o", "jsonpath={.metadata.deletionGracePeriodSeconds}"})
            .out == "30");
  auto bad = kubectl({"delete", "--raw", pods + "graceful?gracePeriodSeconds=soon"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("invalid gracePeriodSeconds") != std::string::npos);
}

}  // namespace
}  // namespace k3c

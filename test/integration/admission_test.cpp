// The admission plugins as kubectl sees them against a real `k3c server`: LimitRanger
// defaults and refusals, ResourceQuota refusals and `describe quota`, DefaultStorageClass,
// Priority and DefaultTolerationSeconds (kubectl 1.27 and 1.33).
#include <catch2/catch.hpp>

#include "kubectl_runner.h"

namespace k3c {
namespace {

constexpr const char* kLimitRange = R"(apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: demo}
spec:
  limits:
  - type: Container
    default: {cpu: 500m, memory: 256Mi}
    defaultRequest: {cpu: 100m, memory: 128Mi}
    max: {cpu: "1"}
)";

std::string pod_yaml(const std::string& name, const std::string& extra_spec = "",
                     const std::string& resources = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: demo}\nspec:\n" +
         extra_spec + "  containers:\n  - name: web\n" + "    image: nginx:1.27\n" + resources;
}

TEST_CASE("LimitRanger: defaults on pods without resources, refusals past max") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox a(version);
  a.ok({"create", "namespace", "demo"});
  CHECK(a.ok({"apply"}, a.file("limits.yaml", kLimitRange)) == "limitrange/limits created\n");
  // The LimitRange was defaulted as upstream does (defaultRequest from default).
  CHECK(a.ok({"get", "limits", "limits", "-n", "demo", "-o",
              "jsonpath={.spec.limits[0].default.cpu}/{.spec.limits[0].defaultRequest.cpu}"}) ==
        "500m/100m");

  CHECK(a.ok({"create"}, a.file("p.yaml", pod_yaml("plain"))) == "pod/plain created\n");
  CHECK(a.ok({"get", "pod", "plain", "-n", "demo", "-o",
              "jsonpath={.spec.containers[0].resources.requests.cpu} "
              "{.spec.containers[0].resources.limits.memory}"}) == "100m 256Mi");
  CHECK(a.ok({"get", "pod", "plain", "-n", "demo", "-o",
              R"(jsonpath={.metadata.annotations.kubernetes\.io/limit-ranger})"}) ==
        "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for "
        "container web");
  // The class is computed after LimitRanger filled the resources in (requests < limits).
  CHECK(a.ok({"get", "pod", "plain", "-n", "demo", "-o", "jsonpath={.status.qosClass}"}) ==
        "Burstable");

  auto big = pod_yaml("big", "", "    resources:\n      limits: {cpu: \"2\"}\n");
  auto r = a.kubectl({"create"}, a.file("big.yaml", big));
  CHECK(r.exit_code == 1);
  CHECK(r.err == "Error from server (Forbidden): error when creating \"" + a.box.path("big.yaml") +
                     "\": pods \"big\" is forbidden: maximum cpu usage per Container is 1, but "
                     "limit is 2.\n");
  CHECK(a.kubectl({"get", "pod", "big", "-n", "demo"}).exit_code == 1);
}

TEST_CASE("status.qosClass is set on create from the pod's resources") {
  KubectlSandbox a("1.33");
  a.ok({"create", "namespace", "demo"});
  // A class sent by the client is not kept: status is the server's.
  auto none = pod_yaml("none") + "status: {qosClass: Guaranteed}\n";
  CHECK(a.ok({"create"}, a.file("none.yaml", none)) == "pod/none created\n");
  // Limits only: the requests default to them, which makes the pod Guaranteed.
  auto exact = pod_yaml("exact", "", "    resources:\n      limits: {cpu: 250m, memory: 64Mi}\n");
  CHECK(a.ok({"create"}, a.file("exact.yaml", exact)) == "pod/exact created\n");
  CHECK(a.ok({"get", "pods", "-n", "demo", "-o",
              R"(jsonpath={range .items[*]}{.metadata.name}={.status.qosClass} {end})"}) ==
        "exact=Guaranteed none=BestEffort ");
  // Updates keep it.
  a.ok({"label", "pod", "exact", "-n", "demo", "tier=gold"});
  CHECK(a.ok({"get", "pod", "exact", "-n", "demo", "-o", "jsonpath={.status.qosClass}"}) ==
        "Guaranteed");
}

TEST_CASE("ResourceQuota: the third pod is refused; describe shows the usage") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox a(version);
  a.ok({"create", "namespace", "demo"});
  a.ok({"create"}, a.file("p0.yaml", pod_yaml("before")));
  CHECK(a.ok({"create", "quota", "q", "-n", "demo", "--hard=pods=2,services=3"}) ==
        "resourcequota/q created\n");
  // The usage is there at once, counting the pod made before the quota. (Services, not
  // config maps: the controller manager adds kube-root-ca.crt to every namespace.)
  CHECK(a.ok({"get", "quota", "q", "-n", "demo", "-o", "jsonpath={.status.used.pods}"}) == "1");
  a.ok({"create"}, a.file("p1.yaml", pod_yaml("one")));
  auto r = a.kubectl({"create"}, a.file("p2.yaml", pod_yaml("two")));
  CHECK(r.exit_code == 1);
  CHECK(r.err == "Error from server (Forbidden): error when creating \"" + a.box.path("p2.yaml") +
                     "\": pods \"two\" is forbidden: exceeded quota: q, requested: pods=1, used: "
                     "pods=2, limited: pods=2\n");
  CHECK(a.ok({"describe", "quota", "q", "-n", "demo"}) ==
        "Name:       q\n"
        "Namespace:  demo\n"
        "Resource    Used  Hard\n"
        "--------    ----  ----\n"
        "pods        2     2\n"
        "services    0     3\n");
  // Deleting a pod frees its place (the quota is recounted when it would refuse).
  a.ok({"delete", "pod", "one", "-n", "demo"});
  CHECK(a.ok({"create"}, a.file("p2.yaml", pod_yaml("two"))) == "pod/two created\n");
  CHECK(a.ok({"get", "quota", "q", "-n", "demo", "-o", "jsonpath={.status.used.pods}"}) == "2");

  // Compute quotas want every container to say what it needs.
  a.ok({"create", "quota", "compute", "-n", "demo", "--hard=limits.cpu=2,requests.memory=1Gi"});
  r = a.kubectl({"create"}, a.file("p3.yaml", pod_yaml("three")));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("pods \"three\" is forbidden: failed quota: compute: must specify limits.cpu "
                   "for: web; requests.memory for: web\n") != std::string::npos);

  // The resource quota controller gives back what deleted pods held, with no write refused
  // first, and keeps status.hard to spec.hard.
  a.ok({"delete", "pod", "two", "before", "-n", "demo"});
  CHECK(eventually([&] {
    return a.kubectl({"get", "quota", "q", "-n", "demo", "-o", "jsonpath={.status.used.pods}"})
               .out == "0";
  }));
  a.ok({"patch", "quota", "q", "-n", "demo", "--type=merge", "-p",
        R"({"spec":{"hard":{"pods":"5","count/configmaps":"4"}}})"});
  CHECK(eventually([&] {
    return a.kubectl({"get", "quota", "q", "-n", "demo", "-o",
                      "jsonpath={.status.hard.pods}/{.status.used['count/configmaps']}"})
               .out == "5/1";  // kube-root-ca.crt
  }));
}

TEST_CASE("DefaultStorageClass, Priority and DefaultTolerationSeconds") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox a(version);
  a.ok({"create", "namespace", "demo"});
  a.ok({"apply"}, a.file("sc.yaml", R"(apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
)"));
  a.ok({"apply"}, a.file("pvc.yaml", R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: demo}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
)"));
  CHECK(a.ok({"get", "pvc", "data", "-n", "demo", "-o", "jsonpath={.spec.storageClassName}"}) ==
        "local");

  CHECK(a.ok({"get", "priorityclass", "-o", "name"}) ==
        "priorityclass.scheduling.k8s.io/system-cluster-critical\n"
        "priorityclass.scheduling.k8s.io/system-node-critical\n");
  a.ok({"create", "priorityclass", "high", "--value=1000"});
  a.ok({"create"}, a.file("hp.yaml", pod_yaml("urgent", "  priorityClassName: high\n")));
  CHECK(a.ok({"get", "pod", "urgent", "-n", "demo", "-o",
              "jsonpath={.spec.priority}/{.spec.preemptionPolicy}"}) ==
        "1000/PreemptLowerPriority");
  a.ok({"create"},
       a.file("crit.yaml", pod_yaml("crit", "  priorityClassName: system-node-critical\n")));
  CHECK(a.ok({"get", "pod", "crit", "-n", "demo", "-o", "jsonpath={.spec.priority}"}) ==
        "2000001000");
  auto r =
      a.kubectl({"create"}, a.file("bad.yaml", pod_yaml("bad", "  priorityClassName: nope\n")));
  CHECK(r.exit_code == 1);
  CHECK(r.err == "Error from server (Forbidden): error when creating \"" + a.box.path("bad.yaml") +
                     "\": pods \"bad\" is forbidden: no PriorityClass with name nope was found\n");

  CHECK(
      a.ok({"get", "pod", "urgent", "-n", "demo", "-o",
            "jsonpath={range .spec.tolerations[*]}{.key}:{.effect}:{.tolerationSeconds} {end}"}) ==
      "node.kubernetes.io/not-ready:NoExecute:300 node.kubernetes.io/unreachable:NoExecute:300 ");
}

}  // namespace
}  // namespace k3c

// kubectl's `create <kind>` generators for the kinds beyond core and apps, against a real
// `k3c server`: kubectl 1.33 sends their bodies as protobuf (decoded by the schemas in
// src/api/schemas/), kubectl 1.27 as JSON; both must store the same objects.
#include <limits.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "kubectl_runner.h"
#include "server_sandbox.h"

namespace k3c {
namespace {

TEST_CASE("kubectl create generators for rbac, scheduling, networking, policy, quotas, hpa") {
  const std::string dir = kubectl_dir();
  REQUIRE_FALSE(dir.empty());
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Sandbox box;
  RunningServer server(box, {"--disable-agent"});
  REQUIRE(server.ready == "READY=1");
  auto kubectl = [&](std::vector<std::string> args) {
    args.insert(args.begin(), dir + "/kubectl." + version);
    std::map<std::string, std::string> env = box.env();
    env["KUBECONFIG"] = box.kubeconfig();
    return run_to_end(args, env, box.path("kubectl"), 30s);
  };
  // Runs a command that must succeed and returns its output.
  auto ok = [&](std::vector<std::string> args) {
    auto r = kubectl(args);
    INFO("kubectl " << args.at(0) << " " << args.at(1) << ": " << r.err);
    CHECK(r.exit_code == 0);
    return r.out;
  };
  auto get = [&](std::vector<std::string> what, const std::string& jsonpath) {
    what.insert(what.begin(), "get");
    what.push_back("-o");
    what.push_back("jsonpath=" + jsonpath);
    return ok(what);
  };
  REQUIRE(ok({"create", "namespace", "demo"}) == "namespace/demo created\n");

  CHECK(ok({"create", "role", "pod-reader", "-n", "demo", "--verb=get,list", "--resource=pods",
            "--resource-name=web"}) == "role.rbac.authorization.k8s.io/pod-reader created\n");
  CHECK(get({"role", "pod-reader", "-n", "demo"}, "{.rules[0].verbs}|{.rules[0].resourceNames}") ==
        R"(["get","list"]|["web"])");
  // An empty API group ("" = core) is a list item, kept though it is a zero string.
  CHECK(get({"role", "pod-reader", "-n", "demo"}, "{.rules[0].apiGroups}") == R"([""])");

  CHECK(ok({"create", "clusterrole", "node-reader", "--verb=get", "--resource=nodes",
            "--non-resource-url=/healthz", "--verb=get"}) ==
        "clusterrole.rbac.authorization.k8s.io/node-reader created\n");
  CHECK(get({"clusterrole", "node-reader"}, "{.rules[*].resources}{.rules[*].nonResourceURLs}") ==
        R"(["nodes"]["/healthz"])");

  CHECK(ok({"create", "rolebinding", "read-pods", "-n", "demo", "--role=pod-reader", "--user=alice",
            "--serviceaccount=demo:bot"}) ==
        "rolebinding.rbac.authorization.k8s.io/read-pods created\n");
  CHECK(
      get({"rolebinding", "read-pods", "-n", "demo"},
          "{.roleRef.kind}/{.roleRef.name}/{.roleRef.apiGroup} "
          "{.subjects[0].kind}:{.subjects[0].name} {.subjects[1].kind}:{.subjects[1].namespace}") ==
      "Role/pod-reader/rbac.authorization.k8s.io User:alice ServiceAccount:demo");

  CHECK(ok({"create", "clusterrolebinding", "read-nodes", "--clusterrole=node-reader",
            "--group=ops"}) == "clusterrolebinding.rbac.authorization.k8s.io/read-nodes created\n");
  CHECK(get({"clusterrolebinding", "read-nodes"}, "{.roleRef.name} {.subjects[0].kind}") ==
        "node-reader Group");

  CHECK(ok({"create", "priorityclass", "high", "--value=1000", "--description=urgent work",
            "--preemption-policy=Never"}) == "priorityclass.scheduling.k8s.io/high created\n");
  CHECK(get({"priorityclass", "high"}, "{.value}/{.description}/{.preemptionPolicy}") ==
        "1000/urgent work/Never");

  CHECK(ok({"create", "ingress", "web", "-n", "demo", "--class=default",
            "--rule=foo.example/bar=svc1:8080", "--rule=foo.example/*=svc2:http"}) ==
        "ingress.networking.k8s.io/web created\n");
  CHECK(get({"ingress", "web", "-n", "demo"},
            "{.spec.ingressClassName} {.spec.rules[0].host} "
            "{.spec.rules[0].http.paths[*].pathType} "
            "{.spec.rules[0].http.paths[0].backend.service.port.number} "
            "{.spec.rules[0].http.paths[1].backend.service.port.name}") ==
        "default foo.example Exact Prefix 8080 http");

  CHECK(ok({"create", "poddisruptionbudget", "web", "-n", "demo", "--selector=app=web",
            "--min-available=50%"}) == "poddisruptionbudget.policy/web created\n");
  CHECK(get({"pdb", "web", "-n", "demo"},
            "{.spec.minAvailable} {.spec.selector.matchLabels.app}") == "50% web");
  CHECK(ok({"create", "pdb", "zero", "-n", "demo", "--selector=app=web", "--max-unavailable=0"}) ==
        "poddisruptionbudget.policy/zero created\n");
  // *IntOrString: a zero is a value, not "unset".
  CHECK(get({"pdb", "zero", "-n", "demo"}, "{.spec.maxUnavailable}") == "0");

  CHECK(ok({"create", "quota", "small", "-n", "demo", "--hard=cpu=1,memory=1Gi,pods=2",
            "--scopes=NotBestEffort"}) == "resourcequota/small created\n");
  CHECK(get({"quota", "small", "-n", "demo"},
            "{.spec.hard.cpu} {.spec.hard.memory} {.spec.hard.pods} {.spec.scopes}") ==
        R"(1 1Gi 2 ["NotBestEffort"])");

  // kubectl 1.27 posts autoscaling/v1, 1.33 autoscaling/v2 (as protobuf); each is read back in
  // the version it was written in.
  REQUIRE(ok({"create", "deployment", "web", "-n", "demo", "--image=busybox"}) ==
          "deployment.apps/web created\n");
  CHECK(ok({"autoscale", "deployment", "web", "-n", "demo", "--min=2", "--max=5",
            "--cpu-percent=60"}) == "horizontalpodautoscaler.autoscaling/web autoscaled\n");
  if (version == "1.27") {
    CHECK(get({"hpa.v1.autoscaling", "web", "-n", "demo"},
              "{.spec.minReplicas}-{.spec.maxReplicas} {.spec.targetCPUUtilizationPercentage}") ==
          "2-5 60");
  } else {
    CHECK(get({"hpa.v2.autoscaling", "web", "-n", "demo"},
              "{.spec.minReplicas}-{.spec.maxReplicas} {.spec.scaleTargetRef.name} "
              "{.spec.metrics[0].resource.target.averageUtilization}") == "2-5 web 60");
  }

  CHECK(ok({"create", "service", "nodeport", "np", "-n", "demo", "--tcp=80:8080"}) ==
        "service/np created\n");
  CHECK(get({"svc", "np", "-n", "demo"}, "{.spec.type} {.spec.ports[0].targetPort}") ==
        "NodePort 8080");
}

}  // namespace
}  // namespace k3c

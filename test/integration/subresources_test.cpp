// Subresources and the authentication/authorization endpoints, driven by the real kubectl
// (1.27 and 1.33) against a real `k3c server`: scale, service-account tokens used as bearer
// tokens, whoami, can-i, pods/binding, pods/eviction with a PodDisruptionBudget, and the
// kubelet-only subresources' error.
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "kubectl_runner.h"
#include "server_sandbox.h"

namespace k3c {
namespace {

struct Kubectl {
  const Sandbox& box;
  std::string binary;
  // With a token: no kubeconfig (whose client certificate would win over the token).
  std::string token;
  Finished operator()(std::vector<std::string> args) const {
    args.insert(args.begin(), binary);
    std::map<std::string, std::string> env = box.env();
    if (token.empty()) {
      env["KUBECONFIG"] = box.kubeconfig();
    } else {
      env["KUBECONFIG"] = box.path("empty-kubeconfig");
      std::ofstream(box.path("empty-kubeconfig")) << "";
      for (std::string a : {"--server=https://127.0.0.1:" + std::to_string(box.port()),
                            std::string("--insecure-skip-tls-verify"), "--token=" + token}) {
        args.push_back(a);
      }
    }
    return run_to_end(args, env, box.path("kubectl"), 30s);
  }
  Kubectl with_token(std::string t) const { return {box, binary, std::move(t)}; }
};

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

TEST_CASE("subresources, tokens and reviews through kubectl") {
  const std::string dir = kubectl_dir();
  REQUIRE_FALSE(dir.empty());
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Sandbox box;
  RunningServer server(box, {"--disable-agent", "--disable-controller-manager"});
  REQUIRE(server.ready == "READY=1");
  Kubectl kubectl{box, dir + "/kubectl." + version, ""};

  SECTION("scale deployments, replicasets and statefulsets") {
    REQUIRE(kubectl({"create", "deployment", "web", "--image=busybox", "--replicas=1"}).exit_code ==
            0);
    auto scaled = kubectl({"scale", "deployment", "web", "--replicas=3"});
    CHECK(scaled.exit_code == 0);
    CHECK(scaled.out == "deployment.apps/web scaled\n");
    CHECK(
        kubectl({"get", "deploy", "web", "-o", "jsonpath={.spec.replicas}/{.metadata.generation}"})
            .out == "3/2");
    auto raw = kubectl({"get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale"});
    CHECK_THAT(raw.out, Catch::Contains(R"("kind":"Scale")"));
    CHECK_THAT(raw.out, Catch::Contains(R"("apiVersion":"autoscaling/v1")"));
    CHECK_THAT(
        raw.out,
        Catch::Contains(R"("spec":{"replicas":3},"status":{"replicas":0,"selector":"app=web"})"));

    auto precondition =
        kubectl({"scale", "deployment", "web", "--current-replicas=2", "--replicas=5"});
    CHECK(precondition.exit_code == 1);
    CHECK_THAT(precondition.err, Catch::Contains("Expected replicas to be 2, was 3"));
    // kubectl checks --resource-version itself against a GET of the scale...
    auto stale = kubectl({"scale", "deployment", "web", "--resource-version=1", "--replicas=5"});
    CHECK(stale.exit_code == 1);
    CHECK_THAT(stale.err, Catch::Contains("Expected resource version to be 1, was"));
    // ...and the server checks a resourceVersion sent in the Scale.
    auto conflict =
        kubectl({"patch", "deployment", "web", "--subresource=scale", "--type=merge", "-p",
                 R"({"metadata":{"resourceVersion":"1"},"spec":{"replicas":5}})"});
    CHECK(conflict.exit_code == 1);
    CHECK_THAT(conflict.err,
               Catch::Contains("Error from server (Conflict): Operation cannot be fulfilled on "
                               "deployments.apps \"web\": the object has been modified; please "
                               "apply your changes to the latest version and try again"));
    auto negative = kubectl({"patch", "deployment", "web", "--subresource=scale", "--type=merge",
                             "-p", R"({"spec":{"replicas":-1}})"});
    CHECK(negative.exit_code == 1);
    CHECK_THAT(negative.err, Catch::Contains("The Scale \"web\" is invalid: spec.replicas: Invalid "
                                             "value: -1: must be greater than or equal to 0"));
    REQUIRE(kubectl({"patch", "deployment", "web", "--subresource=scale", "--type=json", "-p",
                     R"([{"op":"replace","path":"/spec/replicas","value":4}])"})
                .exit_code == 0);
    CHECK(kubectl({"get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"}).out == "4");
    auto missing =
        kubectl({"get", "--raw", "/apis/apps/v1/namespaces/default/deployments/nope/scale"});
    CHECK(missing.exit_code == 1);
    CHECK_THAT(missing.err, Catch::Contains("deployments/scale.apps \"nope\" not found"));

    const std::string rs = box.path("rs.yaml");
    write_file(
        rs,
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: front}\nspec:\n  replicas: 1\n"
        "  selector:\n    matchLabels: {app: front}\n    matchExpressions:\n"
        "    - {key: tier, operator: In, values: [web, edge]}\n  template:\n    metadata:\n"
        "      labels: {app: front, tier: web}\n    spec:\n      containers:\n"
        "      - {name: c, image: busybox}\n");
    REQUIRE(kubectl({"create", "-f", rs}).exit_code == 0);
    CHECK(kubectl({"scale", "rs", "front", "--replicas=2"}).out ==
          "replicaset.apps/front scaled\n");
    CHECK(kubectl({"get", "rs", "front", "-o", "jsonpath={.spec.replicas}"}).out == "2");
    auto rs_scale =
        kubectl({"get", "--raw", "/apis/apps/v1/namespaces/default/replicasets/front/scale"});
    CHECK_THAT(rs_scale.out, Catch::Contains(R"x("selector":"app=front,tier in (edge,web)")x"));

    const std::string sts = box.path("sts.yaml");
    write_file(
        sts,
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 1\n"
        "  serviceName: db\n  selector:\n    matchLabels: {app: db}\n  template:\n    metadata:\n"
        "      labels: {app: db}\n    spec:\n      containers:\n      - {name: c, image: "
        "busybox}\n");
    REQUIRE(kubectl({"create", "-f", sts}).exit_code == 0);
    CHECK(kubectl({"scale", "statefulset", "db", "--replicas=4"}).out ==
          "statefulset.apps/db scaled\n");
    CHECK(kubectl({"get", "sts", "db", "-o", "jsonpath={.spec.replicas}"}).out == "4");
  }

  SECTION("service-account tokens authenticate as the account") {
    REQUIRE(kubectl({"create", "serviceaccount", "bot"}).exit_code == 0);
    auto created = kubectl({"create", "token", "bot"});
    REQUIRE(created.exit_code == 0);
    std::string token = trimmed(created.out);
    CHECK(std::count(token.begin(), token.end(), '.') == 2);
    Kubectl bot = kubectl.with_token(token);

    if (version != "1.27") {  // 1.27's whoami asks for v1beta1/v1alpha1 only
      auto me = kubectl({"auth", "whoami"});
      CHECK(me.exit_code == 0);
      CHECK_THAT(me.out, Catch::Contains("system:admin"));
      CHECK_THAT(me.out, Catch::Contains("[system:masters system:authenticated]"));
      auto who = bot({"auth", "whoami"});
      CHECK(who.exit_code == 0);
      CHECK_THAT(who.out, Catch::Contains("system:serviceaccount:default:bot"));
      CHECK_THAT(who.out, Catch::Contains("[system:serviceaccounts system:serviceaccounts:default "
                                          "system:authenticated]"));
      CHECK_THAT(who.out, Catch::Contains("authentication.kubernetes.io/credential-id"));
    }
    auto list = bot({"get", "pods"});
    CHECK(list.exit_code == 1);
    CHECK_THAT(list.err,
               Catch::Contains("Error from server (Forbidden): pods is forbidden: User "
                               "\"system:serviceaccount:default:bot\" cannot list resource "
                               "\"pods\" in API group \"\" in the namespace \"default\": RBAC "
                               "authorization is not implemented in k3c yet"));
    auto garbage = kubectl.with_token(token.substr(0, token.size() - 4) + "AAAA")({"get", "pods"});
    CHECK(garbage.exit_code == 1);
    CHECK_THAT(garbage.err, Catch::Contains("Unauthorized"));

    auto review = box.path("review.json");
    write_file(
        review,
        R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":")" +
            token + R"("}})");
    auto reviewed =
        kubectl({"create", "--raw", "/apis/authentication.k8s.io/v1/tokenreviews", "-f", review});
    CHECK(reviewed.exit_code == 0);
    CHECK_THAT(reviewed.out, Catch::Contains(R"("authenticated":true)"));
    CHECK_THAT(reviewed.out, Catch::Contains(R"("username":"system:serviceaccount:default:bot")"));

    auto short_lived = kubectl({"create", "token", "bot", "--duration=5m"});
    CHECK(short_lived.exit_code == 1);
    CHECK_THAT(short_lived.err,
               Catch::Contains("TokenRequest.authentication.k8s.io \"\" is invalid: "
                               "spec.expirationSeconds: Invalid value: 300: may not specify a "
                               "duration less than 10 minutes"));
    auto nobody = kubectl({"create", "token", "nobody"});
    CHECK(nobody.exit_code == 1);
    CHECK_THAT(nobody.err, Catch::Contains("serviceaccounts \"nobody\" not found"));

    // A token bound to a pod authenticates while that pod exists.
    REQUIRE(kubectl({"run", "q", "--image=busybox",
                     R"(--overrides={"spec":{"serviceAccountName":"bot"}})"})
                .exit_code == 0);
    auto bound =
        kubectl({"create", "token", "bot", "--bound-object-kind=Pod", "--bound-object-name=q"});
    REQUIRE(bound.exit_code == 0);
    Kubectl pod_bot = kubectl.with_token(trimmed(bound.out));
    CHECK(pod_bot({"auth", "can-i", "get", "pods"}).out ==
          "no - RBAC authorization is not implemented in k3c yet\n");
    REQUIRE(kubectl({"delete", "pod", "q", "--grace-period=0", "--force"}).exit_code == 0);
    CHECK_THAT(pod_bot({"auth", "can-i", "get", "pods"}).err, Catch::Contains("Unauthorized"));

    // A deleted account's tokens stop working.
    REQUIRE(kubectl({"delete", "serviceaccount", "bot"}).exit_code == 0);
    auto after = bot({"get", "pods"});
    CHECK(after.exit_code == 1);
    CHECK_THAT(after.err, Catch::Contains("Unauthorized"));
  }

  SECTION("auth can-i answers yes for system:masters and an honest no otherwise") {
    auto yes = kubectl({"auth", "can-i", "create", "pods"});
    CHECK(yes.exit_code == 0);
    CHECK(yes.out == "yes\n");
    auto all = kubectl({"auth", "can-i", "--list"});
    CHECK(all.exit_code == 0);
    CHECK_THAT(all.out, Catch::Contains("*.*"));
    REQUIRE(kubectl({"create", "serviceaccount", "bot"}).exit_code == 0);
    Kubectl bot = kubectl.with_token(trimmed(kubectl({"create", "token", "bot"}).out));
    auto no = bot({"auth", "can-i", "create", "pods"});
    CHECK(no.exit_code == 1);
    CHECK(no.out == "no - RBAC authorization is not implemented in k3c yet\n");
    auto rules = bot({"auth", "can-i", "--list"});
    CHECK_THAT(rules.out, Catch::Contains("selfsubjectaccessreviews.authorization.k8s.io"));
    CHECK_THAT(rules.out + rules.err,
               Catch::Contains("RBAC authorization is not implemented in k3c yet"));
  }

  SECTION("binding, eviction with a disruption budget, and the kubelet's subresources") {
    // No controller manager makes the namespace's default account: a pod needs one.
    REQUIRE(kubectl({"create", "serviceaccount", "default"}).exit_code == 0);
    REQUIRE(kubectl({"run", "p", "--image=busybox"}).exit_code == 0);
    const std::string binding = box.path("binding.json");
    write_file(
        binding,
        R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}})");
    auto bound =
        kubectl({"create", "--raw", "/api/v1/namespaces/default/pods/p/binding", "-f", binding});
    CHECK(bound.exit_code == 0);
    CHECK_THAT(bound.out, Catch::Contains(R"("status":"Success")"));
    CHECK(
        kubectl(
            {"get", "pod", "p", "-o",
             R"(jsonpath={.spec.nodeName}/{.status.conditions[?(@.type=="PodScheduled")].status})"})
            .out == "n1/True");
    auto again = kubectl({"create", "--raw", "/api/v1/namespaces/default/bindings", "-f", binding});
    CHECK(again.exit_code == 1);
    CHECK_THAT(again.err, Catch::Contains("Operation cannot be fulfilled on pods/binding \"p\": "
                                          "pod p is already assigned to node \"n1\""));

    auto logs = kubectl({"logs", "p"});
    CHECK(logs.exit_code == 1);
    CHECK_THAT(logs.err, Catch::Contains("(ServiceUnavailable)"));
    CHECK_THAT(logs.err, Catch::Contains("cannot reach the kubelet of node n1"));
    auto bad_tail = kubectl({"get", "--raw", "/api/v1/namespaces/default/pods/p/log?tailLines=-1"});
    CHECK_THAT(bad_tail.err, Catch::Contains("PodLogOptions \"p\" is invalid"));
    auto bad_container = kubectl({"logs", "p", "-c", "nope"});
    CHECK_THAT(bad_container.err, Catch::Contains("container nope is not valid for pod p"));
    auto exec = kubectl({"exec", "p", "--", "true"});
    CHECK(exec.exit_code != 0);
    CHECK_THAT(exec.err, Catch::Contains("cannot reach the kubelet of node n1"));

    // A running pod under a budget with no disruptions left: 429 naming the budget.
    REQUIRE(kubectl({"patch", "pod", "p", "--subresource=status", "--type=merge", "-p",
                     R"({"status":{"phase":"Running"}})"})
                .exit_code == 0);
    const std::string pdb = box.path("pdb.yaml");
    write_file(pdb,
               "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\n"
               "spec:\n  minAvailable: 2\n  selector:\n    matchLabels: {run: p}\n");
    REQUIRE(kubectl({"create", "-f", pdb}).exit_code == 0);
    auto set_allowed = [&](int n) {
      return kubectl({"patch", "pdb", "pdb", "--subresource=status", "--type=merge", "-p",
                      R"({"status":{"observedGeneration":1,"desiredHealthy":2,"currentHealthy":1,)"
                      R"("expectedPods":2,"disruptionsAllowed":)" +
                          std::to_string(n) + "}}"})
          .exit_code;
    };
    const std::string eviction = box.path("eviction.json");
    write_file(eviction, R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},)"
                         R"("deleteOptions":{"gracePeriodSeconds":0}})");
    const std::string path = "/api/v1/namespaces/default/pods/p/eviction";
    auto unobserved = kubectl({"create", "--raw", path, "-f", eviction});
    CHECK(unobserved.exit_code == 1);
    CHECK_THAT(
        unobserved.err,
        Catch::Contains("Cannot evict pod as it would violate the pod's disruption budget."));
    REQUIRE(set_allowed(0) == 0);
    auto refused = kubectl({"create", "--raw", path, "-f", eviction});
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Catch::Contains("TooManyRequests"));
    CHECK(kubectl({"get", "pod", "p", "-o", "name"}).out == "pod/p\n");
    REQUIRE(set_allowed(1) == 0);
    auto evicted = kubectl({"create", "--raw", path, "-f", eviction});
    CHECK(evicted.exit_code == 0);
    CHECK_THAT(evicted.out, Catch::Contains(R"("status":"Success")"));
    auto gone = kubectl({"get", "pod", "p"});
    CHECK(gone.err == "Error from server (NotFound): pods \"p\" not found\n");
    CHECK(kubectl({"get", "pdb", "pdb", "-o",
                   "jsonpath={.status.disruptionsAllowed}/{.status.disruptedPods.p}"})
              .out.rfind("0/20", 0) == 0);
  }
}

}  // namespace
}  // namespace k3c

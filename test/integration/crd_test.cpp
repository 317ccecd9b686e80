// CustomResourceDefinitions end to end, driven by the real kubectl (1.27 and 1.33) against a
// real `k3c server`: a CRD becomes a served resource (discovery, printer columns, short
// names, categories, explain), its objects are pruned, defaulted and validated by the
// schema, status and scale subresources work, and deleting the CRD takes it all away.
// Also `kubectl explain` of built-in kinds, which prints our own descriptions
// (src/api/schemas/descriptions/) from the same /openapi/v3 documents, and the garbage
// collector over custom resources (as owners and as dependents).
#include <catch2/catch.hpp>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.labelSelector
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: the crontab's wishes
            required: [cronSpec]
            properties:
              cronSpec: {type: string, description: when to run}
              image: {type: string}
              replicas: {type: integer, minimum: 1, maximum: 10, default: 1}
          status:
            type: object
            properties:
              replicas: {type: integer}
              labelSelector: {type: string}
)";

const char* kCr = R"(apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-cron
spec:
  cronSpec: "* * * * */5"
  image: my-image
)";

void install_crd(const KubectlRunner& kubectl, const Sandbox& box) {
  const std::string crd = box.path("crd.yaml");
  write_file(crd, kCrd);
  auto applied = kubectl({"apply"}, crd);
  REQUIRE(applied.err == "");
  CHECK(applied.out ==
        "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created\n");
  auto established = kubectl({"wait", "--for", "condition=established", "--timeout=20s",
                              "crd/crontabs.stable.example.com"});
  CHECK(established.out ==
        "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition "
        "met\n");
}

TEST_CASE("kubectl serves, validates and removes custom resources") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  Sandbox& box = session.box;
  const KubectlRunner& kubectl = session.kubectl;
  install_crd(kubectl, box);

  auto resources = kubectl({"api-resources", "--api-group", "stable.example.com"});
  CHECK_THAT(
      resources.out,
      Catch::Contains("crontabs   ct           stable.example.com/v1   true         CronTab"));

  const std::string cr = box.path("cr.yaml");
  write_file(cr, kCr);
  ChildProcess watch({kubectl.binary, "get", "crontabs", "-w", "-o", "name"}, kubectl.env(),
                     box.path("watch"));
  auto created = kubectl({"apply"}, cr);
  REQUIRE(created.err == "");
  CHECK(created.out == "crontab.stable.example.com/my-cron created\n");

  SECTION("printer columns, short names, defaults, categories, explain") {
    auto table = kubectl({"get", "crontabs"});
    CHECK_THAT(table.out, Catch::StartsWith("NAME      SPEC          REPLICAS   AGE\n"
                                            "my-cron   * * * * */5   1          "));
    auto yaml = kubectl({"get", "ct", "my-cron", "-o", "yaml"});
    CHECK_THAT(yaml.out, Catch::Contains("kind: CronTab"));
    CHECK_THAT(yaml.out, Catch::Contains("  replicas: 1\n"));  // the schema's default
    CHECK_THAT(yaml.out, Catch::Contains("  cronSpec: '* * * * */5'\n"));
    auto all = kubectl({"get", "all", "-o", "name"});
    CHECK_THAT(all.out, Catch::Contains("crontab.stable.example.com/my-cron"));
    auto explain = kubectl({"explain", "crontab.spec"});
    CHECK(explain.exit_code == 0);
    CHECK_THAT(explain.out, Catch::Contains("cronSpec"));
    CHECK_THAT(explain.out, Catch::Contains("when to run"));
  }

  SECTION("validation, pruning and strict field validation") {
    const std::string bad = box.path("bad.yaml");
    write_file(bad,
               "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: bad-cron\n"
               "spec:\n  cronSpec: x\n  replicas: two\n");
    auto invalid = kubectl({"apply"}, bad);
    CHECK(invalid.exit_code == 1);
    CHECK(invalid.err ==
          "The CronTab \"bad-cron\" is invalid: spec.replicas: Invalid value: \"string\": "
          "spec.replicas in body must be of type integer: \"string\"\n");
    write_file(bad,
               "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: bad-cron\n"
               "spec:\n  cronSpec: x\n  foo: 1\n");
    auto strict = kubectl({"create"}, bad);
    CHECK(strict.exit_code == 1);
    CHECK(strict.err == "Error from server (BadRequest): error when creating \"" + bad +
                            "\": CronTab in version \"v1\" cannot be handled as a CronTab: strict "
                            "decoding error: unknown field \"spec.foo\"\n");
    auto pruned = kubectl({"create", "--validate=false"}, bad);
    CHECK(pruned.exit_code == 0);
    CHECK(kubectl({"get", "ct", "bad-cron", "-o", "jsonpath={.spec}"}).out ==
          R"({"cronSpec":"x","replicas":1})");
    auto range =
        kubectl({"patch", "ct", "my-cron", "--type", "merge", "-p", R"({"spec":{"replicas":11}})"});
    CHECK(range.err ==
          "The CronTab \"my-cron\" is invalid: spec.replicas: Invalid value: 11: spec.replicas in "
          "body should be less than or equal to 10\n");
  }

  SECTION("merge patch, watch, status and scale subresources") {
    CHECK(kubectl(
              {"patch", "ct", "my-cron", "--type", "merge", "-p", R"({"spec":{"image":"other"}})"})
              .out == "crontab.stable.example.com/my-cron patched\n");
    auto strategic = kubectl({"patch", "ct", "my-cron", "-p", R"({"spec":{"image":"x"}})"});
    CHECK(strategic.exit_code == 1);
    CHECK(strategic.err ==
          "error: application/strategic-merge-patch+json is not supported by "
          "stable.example.com/v1, Kind=CronTab: the body of the request was in an unknown "
          "format - accepted media types include: application/json-patch+json, "
          "application/merge-patch+json, application/apply-patch+yaml\n");
    // Through the main resource the status does not change; through /status it does.
    CHECK(
        kubectl({"patch", "ct", "my-cron", "--type", "merge", "-p", R"({"status":{"replicas":5}})"})
            .exit_code == 0);
    CHECK(kubectl({"get", "ct", "my-cron", "-o", "jsonpath={.status.replicas}"}).out == "");
    auto status = kubectl({"patch", "ct", "my-cron", "--subresource=status", "--type", "merge",
                           "-p", R"({"status":{"replicas":2,"labelSelector":"app=cron"}})"});
    CHECK(status.out == "crontab.stable.example.com/my-cron patched\n");
    CHECK(kubectl({"get", "ct", "my-cron", "-o", "jsonpath={.status.replicas}"}).out == "2");
    auto scaled = kubectl({"scale", "crontab", "my-cron", "--replicas=3"});
    CHECK(scaled.out == "crontab.stable.example.com/my-cron scaled\n");
    CHECK(kubectl({"get", "ct", "my-cron", "-o", "jsonpath={.spec.replicas}"}).out == "3");
    auto scale = kubectl(
        {"get", "--raw", "/apis/stable.example.com/v1/namespaces/default/crontabs/my-cron/scale"});
    CHECK_THAT(scale.out, Catch::Contains(R"("spec":{"replicas":3})"));
    CHECK_THAT(scale.out, Catch::Contains(R"("selector":"app=cron")"));
    std::this_thread::sleep_for(500ms);
    watch.signal(SIGTERM);
    watch.wait(5s);
    // ADDED, then the image patch, the status patch and the scale.
    CHECK(watch.out() ==
          "crontab.stable.example.com/my-cron\ncrontab.stable.example.com/my-cron\n"
          "crontab.stable.example.com/my-cron\ncrontab.stable.example.com/my-cron\n");
  }

  SECTION("deleting the CRD deletes its objects and stops serving it") {
    auto deleted = kubectl({"delete", "crd", "crontabs.stable.example.com"});
    CHECK(deleted.out ==
          "customresourcedefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" "
          "deleted\n");
    auto after = kubectl({"api-resources"});
    CHECK(after.exit_code == 0);
    CHECK_THAT(after.out, !Catch::Contains("crontabs"));
    auto gone = kubectl({"get", "crontabs"});
    CHECK(gone.exit_code == 1);
    CHECK_THAT(gone.err, Catch::Contains("the server doesn't have a resource type \"crontabs\""));
    // Created again, the CRD starts empty: the old objects were deleted with it.
    install_crd(kubectl, box);
    CHECK(kubectl({"get", "crontabs", "-o", "name"}).out == "");
  }
}

TEST_CASE("CRD names conflicts and CRD validation answer as upstream") {
  const std::string dir = kubectl_dir();
  Sandbox box;
  RunningServer server(box, {"--disable-agent"});
  REQUIRE(server.ready == "READY=1");
  KubectlRunner kubectl{box, dir + "/kubectl.1.33"};
  install_crd(kubectl, box);
  // A second CRD of the group whose plural is the first one's short name.
  std::string clash = kCrd;
  auto replace = [&](const std::string& from, const std::string& to) {
    clash.replace(clash.find(from), from.size(), to);
  };
  replace("name: crontabs.stable.example.com", "name: ct.stable.example.com");
  replace("plural: crontabs", "plural: ct");
  replace("singular: crontab", "singular: ctone");
  replace("kind: CronTab", "kind: OtherTab");
  replace("shortNames: [ct]", "shortNames: []");
  const std::string file = box.path("clash.yaml");
  write_file(file, clash);
  REQUIRE(kubectl({"apply"}, file).exit_code == 0);
  std::string cond;
  for (int i = 0; i < 50 && cond.empty(); ++i) {
    cond = kubectl({"get", "crd", "ct.stable.example.com", "-o",
                    "jsonpath={.status.conditions[?(@.type==\"NamesAccepted\")].reason}"})
               .out;
    if (cond.empty()) std::this_thread::sleep_for(100ms);
  }
  CHECK(cond == "PluralConflict");

  std::string wrong = kCrd;
  wrong.replace(wrong.find("name: crontabs.stable.example.com"),
                std::string("name: crontabs.stable.example.com").size(), "name: wrong.example.com");
  write_file(file, wrong);
  auto invalid = kubectl({"create"}, file);
  CHECK(invalid.exit_code == 1);
  CHECK_THAT(invalid.err,
             Catch::Contains("The CustomResourceDefinition \"wrong.example.com\" is invalid: "
                             "metadata.name: Invalid value: \"wrong.example.com\": must be "
                             "spec.names.plural+\".\"+spec.group"));
}

TEST_CASE("a restarted server serves the stored CRDs again") {
  const std::string dir = kubectl_dir();
  Sandbox box;
  const std::string cr = box.path("cr.yaml");
  write_file(cr, kCr);
  KubectlRunner kubectl{box, dir + "/kubectl.1.33"};
  {
    RunningServer server(box, {"--disable-agent"});
    REQUIRE(server.ready == "READY=1");
    install_crd(kubectl, box);
    REQUIRE(kubectl({"apply"}, cr).exit_code == 0);
    server.process.signal(SIGTERM);
    REQUIRE(server.process.wait(20s).has_value());
  }
  RunningServer again(box, {"--disable-agent"});
  REQUIRE(again.ready == "READY=1");
  auto got = kubectl({"get", "ct", "my-cron", "-o", "jsonpath={.spec.cronSpec}"});
  CHECK(got.out == "* * * * */5");
}

TEST_CASE("the garbage collector follows custom resources and other kinds, owners and dependents") {
  KubectlSandbox session("1.33");
  const KubectlRunner& kubectl = session.kubectl;
  install_crd(kubectl, session.box);
  auto uid_of = [&](const std::string& what) {
    return kubectl({"get", what, "-o", "jsonpath={.metadata.uid}"}).out;
  };
  auto gone = [&](const std::string& what) {
    return eventually([&] {
      return kubectl({"get", what}).err.find("NotFound") != std::string::npos;
    });
  };
  auto owned_by = [](const std::string& api_version, const std::string& kind,
                     const std::string& name, const std::string& uid, bool block) {
    return "  ownerReferences:\n  - {apiVersion: " + api_version + ", kind: " + kind +
           ", name: " + name + ", uid: " + uid + (block ? ", blockOwnerDeletion: true" : "") +
           "}\n";
  };
  auto cron = [](const std::string& name, const std::string& owners) {
    return "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: " + name + "\n" +
           owners + "spec: {cronSpec: \"* * * * *\"}\n";
  };
  auto config_map = [](const std::string& name, const std::string& owners) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" + owners;
  };

  // A custom resource owns a ConfigMap: deleting it deletes the ConfigMap.
  session.ok({"apply", "-f", session.file("owner.yaml", cron("owner", ""))});
  const std::string owner = uid_of("crontab/owner");
  REQUIRE_FALSE(owner.empty());
  session.ok(
      {"apply", "-f",
       session.file("dep.yaml", config_map("dep", owned_by("stable.example.com/v1", "CronTab",
                                                           "owner", owner, false)))});
  session.ok({"delete", "crontab", "owner"});
  CHECK(gone("configmap/dep"));

  // A ConfigMap owns a custom resource: deleting it deletes the custom resource.
  session.ok({"create", "configmap", "parent"});
  const std::string parent = uid_of("configmap/parent");
  session.ok({"apply", "-f",
              session.file("child.yaml",
                           cron("child", owned_by("v1", "ConfigMap", "parent", parent, false)))});
  // And other built-in kinds than the workloads': a Role and an Ingress it owns go with it.
  for (const char* kind : {"Role", "Ingress"}) {
    const std::string name = std::string("owned-") + (kind[0] == 'R' ? "role" : "ingress");
    const std::string api =
        kind[0] == 'R' ? "rbac.authorization.k8s.io/v1" : "networking.k8s.io/v1";
    const std::string body =
        kind[0] == 'R' ? "rules: []\n"
                       : "spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}\n";
    session.ok(
        {"apply", "-f",
         session.file(name + ".yaml",
                      "apiVersion: " + api + "\nkind: " + kind + "\nmetadata:\n  name: " + name +
                          "\n" + owned_by("v1", "ConfigMap", "parent", parent, false) + body)});
  }
  session.ok({"delete", "configmap", "parent"});
  CHECK(gone("crontab/child"));
  CHECK(gone("role/owned-role"));
  CHECK(gone("ingress/owned-ingress"));

  // Foreground deletion of a custom resource waits for its blocking dependent.
  session.ok({"apply", "-f", session.file("fg.yaml", cron("fg", ""))});
  const std::string fg = uid_of("crontab/fg");
  session.ok(
      {"apply", "-f",
       session.file("fg-dep.yaml", config_map("fg-dep", owned_by("stable.example.com/v1", "CronTab",
                                                                 "fg", fg, true)))});
  session.ok({"delete", "crontab", "fg", "--cascade=foreground", "--timeout=30s"});
  CHECK(kubectl({"get", "configmap", "fg-dep"}).err.find("NotFound") != std::string::npos);
  CHECK(kubectl({"get", "crontab", "fg"}).err.find("NotFound") != std::string::npos);

  // Garbage left while the kind was not yet watched is found once it is: a ConfigMap whose
  // owner names a CronTab uid that never existed goes too.
  session.ok(
      {"apply", "-f",
       session.file("stray.yaml", config_map("stray", owned_by("stable.example.com/v1", "CronTab",
                                                               "never", "0000-never", false)))});
  CHECK(gone("configmap/stray"));
}

TEST_CASE("kubectl explain prints our descriptions of built-in kinds") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  // stdout only: stderr may carry client-side notices (throttling) on a loaded machine.
  auto explain = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "explain");
    auto r = session.kubectl(args);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    return r.out;
  };

  // A field path: the field's words, then its type's, then the type's fields with theirs.
  std::string strategy = explain({"deployment.spec.strategy"});
  CHECK_THAT(strategy, Catch::Contains("KIND:       Deployment"));
  CHECK_THAT(strategy, Catch::Contains("FIELD: strategy <DeploymentStrategy>"));
  CHECK_THAT(strategy, Catch::Contains("DESCRIPTION:\n"
                                       "    How running pods are replaced by pods of a new "
                                       "template.\n"
                                       "    How a Deployment replaces old pods with new ones.\n"));
  CHECK_THAT(strategy, Catch::Contains("  rollingUpdate\t<RollingUpdateDeployment>\n"
                                       "    The pace of a RollingUpdate. Only allowed with type "
                                       "RollingUpdate.\n"));
  CHECK_THAT(strategy, Catch::Contains("  type\t<string>\n"));  // 1.33 adds an enum line
  CHECK_THAT(strategy, Catch::Contains("\n    RollingUpdate (the default) replaces pods a few"));

  // IntOrString and Quantity are named, not called strings.
  std::string surge = explain({"deployment.spec.strategy.rollingUpdate.maxSurge"});
  CHECK_THAT(surge, Catch::Contains("FIELD: maxSurge <IntOrString>"));
  std::string limits = explain({"pod.spec.containers.resources.limits"});
  CHECK_THAT(limits, Catch::Contains("FIELD: limits <map[string]Quantity>"));

  // A leaf field.
  std::string image = explain({"pod.spec.containers.image"});
  CHECK_THAT(image, Catch::Contains("FIELD: image <string>"));
  CHECK_THAT(image, Catch::Contains("DESCRIPTION:\n    The image to run, such as \"nginx:1.27\""));

  // A kind's own sentence, and the recursive field tree below it.
  std::string service = explain({"service", "--recursive"});
  CHECK_THAT(service, Catch::Contains("KIND:       Service\nVERSION:    v1\n\nDESCRIPTION:\n"
                                      "    A stable name and virtual address for a set of pods"));
  CHECK_THAT(service, Catch::Contains("  spec\t<ServiceSpec>\n    allocateLoadBalancerNodePorts"));
  CHECK_THAT(service, Catch::Contains("    ports\t<[]ServicePort>\n      appProtocol\t<string>\n"));

  // apiVersion and kind come from meta/v1 TypeMeta's words.
  std::string pod = explain({"pod"});
  CHECK_THAT(pod, Catch::Contains("  apiVersion\t<string>\n"
                                  "    The group and version this object is written in"));
  CHECK_THAT(pod, Catch::Contains("  metadata\t<ObjectMeta>\n"
                                  "    The pod's name, namespace, labels and other object"));
}

}  // namespace
}  // namespace k3c

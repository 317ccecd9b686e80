// Defaulting, validation and fieldValidation as kubectl users meet them: the real kubectl
// (1.27 and 1.33) against a real `k3c server`, checking what kubectl prints.
#include <catch2/catch.hpp>

#include "kubectl_runner.h"

namespace k3c {
namespace {

std::string deployment(const std::string& name, const std::string& selector_app,
                       const std::string& extra_spec = "") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n" +
         extra_spec + "  selector:\n    matchLabels: {app: " + selector_app +
         "}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n"
         "      containers:\n      - {name: web, image: nginx:1.27}\n";
}

TEST_CASE("kubectl meets upstream's defaults, validation and field validation") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  Sandbox& box = session.box;
  const KubectlRunner& kubectl = session.kubectl;
  const std::string file = box.path("obj.yaml");

  // Defaults, as `kubectl get -o yaml` shows them on a real cluster.
  REQUIRE(kubectl({"create", "deployment", "web", "--image=nginx"}).exit_code == 0);
  auto yaml = kubectl({"get", "deployment", "web", "-o", "yaml"});
  REQUIRE(yaml.exit_code == 0);
  for (const char* line :
       {"  progressDeadlineSeconds: 600\n", "  replicas: 1\n", "  revisionHistoryLimit: 10\n",
        "      maxSurge: 25%\n", "      maxUnavailable: 25%\n", "    type: RollingUpdate\n",
        "        imagePullPolicy: Always\n",
        "        terminationMessagePath: /dev/termination-log\n",
        "        terminationMessagePolicy: File\n", "      dnsPolicy: ClusterFirst\n",
        "      restartPolicy: Always\n", "      schedulerName: default-scheduler\n",
        "      securityContext: {}\n", "      terminationGracePeriodSeconds: 30\n"}) {
    CHECK_THAT(yaml.out, Catch::Contains(line));
  }

  // A selector that does not match the template.
  write_file(file, deployment("mismatch", "other"));
  auto mismatch = kubectl({"apply"}, file);
  CHECK(mismatch.exit_code == 1);
  CHECK(mismatch.err ==
        "The Deployment \"mismatch\" is invalid: spec.template.metadata.labels: Invalid value: "
        "{\"app\":\"web\"}: `selector` does not match template `labels`\n");

  // Unknown fields: rejected under kubectl's default (Strict), a warning under Warn.
  write_file(file, deployment("typo", "web", "  replica: 2\n"));
  auto strict = kubectl({"apply"}, file);
  CHECK(strict.exit_code == 1);
  CHECK(strict.err == "Error from server (BadRequest): error when creating \"" + file +
                          "\": Deployment in version \"v1\" cannot be handled as a Deployment: "
                          "strict decoding error: unknown field \"spec.replica\"\n");
  auto warned = kubectl({"apply", "--validate=warn"}, file);
  CHECK(warned.exit_code == 0);
  CHECK_THAT(warned.err, Catch::Contains("Warning: unknown field \"spec.replica\""));
  CHECK(warned.out == "deployment.apps/typo created\n");
  CHECK(kubectl({"get", "deploy", "typo", "-o", "jsonpath={.spec.replicas}"}).out == "1");
  // Every built-in kind is described whole (rules/complete.yaml), not only the core ones: a
  // ClusterRole's unknown field is refused as well, and dropped under Warn.
  write_file(file,
             "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: "
             "reader}\nrules:\n- {apiGroups: [\"\"], resources: [pods], verbs: [get], "
             "verb: [list]}\n");
  auto strict_role = kubectl({"apply"}, file);
  CHECK(strict_role.exit_code == 1);
  CHECK(strict_role.err ==
        "Error from server (BadRequest): error when creating \"" + file +
            "\": ClusterRole in version \"v1\" cannot be handled as a "
            "ClusterRole: strict decoding error: unknown field \"rules[0].verb\"\n");
  auto warned_role = kubectl({"apply", "--validate=warn"}, file);
  CHECK(warned_role.exit_code == 0);
  CHECK_THAT(warned_role.err, Catch::Contains("Warning: unknown field \"rules[0].verb\""));
  CHECK(kubectl({"get", "clusterrole", "reader", "-o", "jsonpath={.rules[0]}"}).out ==
        R"({"apiGroups":[""],"resources":["pods"],"verbs":["get"]})");

  // A bad name, in upstream's words.
  write_file(file, deployment("Web_1", "web"));
  auto bad_name = kubectl({"create"}, file);
  CHECK(bad_name.exit_code == 1);
  CHECK(bad_name.err ==
        "The Deployment \"Web_1\" is invalid: metadata.name: Invalid value: \"Web_1\": a "
        "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
        "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
        "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
        "')\n");

  // The selector of an existing Deployment is immutable.
  write_file(file, deployment("typo", "web2")
                       .replace(deployment("typo", "web2").find("labels: {app: web}"),
                                std::string("labels: {app: web}").size(), "labels: {app: web2}"));
  auto immutable = kubectl({"apply"}, file);
  CHECK(immutable.exit_code == 1);
  CHECK_THAT(immutable.err,
             Catch::Contains("The Deployment \"typo\" is invalid: spec.selector: Invalid value: "
                             "{\"matchLabels\":{\"app\":\"web2\"}}: field is immutable"));

  // Several causes at once (kubectl lists them); a Job needs a restartPolicy that ends.
  write_file(file,
             "apiVersion: batch/v1\nkind: Job\nmetadata: {name: pi}\nspec:\n  template:\n"
             "    spec:\n      containers: [{name: pi, image: ''}]\n");
  auto job = kubectl({"create"}, file);
  CHECK(job.exit_code == 1);
  CHECK(job.err ==
        "The Job \"pi\" is invalid: \n"
        "* spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: "
        "\"OnFailure\", \"Never\"\n"
        "* spec.template.spec.containers[0].image: Required value\n");

  // Services: ports are required; defaults fill in the rest.
  write_file(file, "apiVersion: v1\nkind: Service\nmetadata: {name: noports}\nspec: {}\n");
  auto noports = kubectl({"create"}, file);
  CHECK(noports.err == "The Service \"noports\" is invalid: spec.ports: Required value\n");
  write_file(file,
             "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n"
             "  ports: [{port: 80}]\n  selector: {app: web}\n");
  REQUIRE(kubectl({"create"}, file).exit_code == 0);
  CHECK(kubectl({"get", "svc", "web", "-o",
                 "jsonpath={.spec.type} {.spec.sessionAffinity} {.spec.ports[0].protocol} "
                 "{.spec.ports[0].targetPort} {.spec.internalTrafficPolicy}"})
            .out == "ClusterIP None TCP 80 Cluster");

  // A pod gets its own defaults (enableServiceLinks, pull policy by tag).
  REQUIRE(kubectl({"run", "solo", "--image=busybox:1.36", "--restart=Never"}).exit_code == 0);
  CHECK(kubectl({"get", "pod", "solo", "-o",
                 "jsonpath={.spec.enableServiceLinks} {.spec.containers[0].imagePullPolicy} "
                 "{.spec.restartPolicy}"})
            .out == "true IfNotPresent Never");
}

}  // namespace
}  // namespace k3c

// The rules overlay, the schema-driven defaulter and validator, and the per-type hooks.
#include "api/validation.h"

#include <catch2/catch.hpp>

#include "api/internal/schema_rules.h"

namespace k3c::api {
namespace {

using nlohmann::json;

const SchemaSet& validation_schemas() {
  static const SchemaSet set = SchemaSet::builtin().value();
  return set;
}

const MessageType& kind(const char* group, const char* k) {
  return *validation_schemas().kind({group, "v1", k});
}

std::vector<std::string> messages(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.field + ": " + e.body());
  return out;
}

constexpr std::string_view kFacts = R"(
package: t.v1
kinds: {v1: [Thing]}
types:
  Thing:
    fields:
    - {name: metadata, number: 1, type: meta.v1.ObjectMeta}
    - {name: mode, number: 2, type: string}
    - {name: size, number: 3, type: int32}
)";
constexpr std::string_view kMeta = R"(
package: meta.v1
types:
  ObjectMeta: {fields: [{name: name, number: 1, type: string}]}
)";

TEST_CASE("rules attach to fields; mistakes name the file, type and field") {
  const Field* name = kind("", "Pod")
                          .field_by_name("spec")
                          ->type.message->field_by_name("containers")
                          ->type.element->message->field_by_name("name");
  CHECK(name->required);
  CHECK(name->format == "dns1123-label");
  CHECK(validation_schemas().complete({"apps", "v1", "Deployment"}));
  CHECK_FALSE(validation_schemas().complete({"meta", "v1", "Status"}));

  auto load = [](std::string_view rules) {
    return SchemaSet::from_yaml({{"meta.yaml", kMeta}, {"t.yaml", kFacts}},
                                {{"rules/t.yaml", rules}});
  };
  CHECK(load("package: t.v1\ntypes: {Thing: {mode: {enum: [a, b], default: a}}}").is_ok());
  auto unknown = load("package: t.v1\ntypes: {Thing: {colour: {required: true}}}");
  CHECK(unknown.status().message() ==
        "schema rules rules/t.yaml: t.v1.Thing.colour: no such field");
  CHECK(load("package: t.v1\ntypes: {Thingy: {}}").status().message() ==
        "schema rules rules/t.yaml: t.v1.Thingy: no such type");
  CHECK(load("package: t.v1\ntypes: {Thing: {size: {format: dns1123-label}}}").status().message() ==
        "schema rules rules/t.yaml: t.v1.Thing.size: format is for strings");
  CHECK(load("package: t.v1\ntypes: {Thing: {mode: {format: shouty}}}").status().message() ==
        "schema rules rules/t.yaml: t.v1.Thing.mode: unknown format \"shouty\"");
  CHECK_FALSE(load("package: t.v1\ntypes: {Thing: {mode: {requird: true}}}").is_ok());
  CHECK(load("package: t.v1\ncomplete: {v1: [Other]}").status().message() ==
        "schema rules rules/t.yaml: complete: no kind v1 Other");
}

// What `kubectl create deployment web --image=nginx` sends.
json created_deployment() {
  return json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]}},
      "strategy": {}}, "status": {}})");
}

TEST_CASE("a new Deployment gets upstream's defaults, down into its containers") {
  json d = created_deployment();
  apply_defaults(d, kind("apps", "Deployment"));
  const json& spec = d["spec"];
  CHECK(spec["revisionHistoryLimit"] == 10);
  CHECK(spec["progressDeadlineSeconds"] == 600);
  CHECK(spec["strategy"] == json::parse(R"({"type": "RollingUpdate",
      "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})"));
  const json& pod = spec["template"]["spec"];
  CHECK(pod["restartPolicy"] == "Always");
  CHECK(pod["dnsPolicy"] == "ClusterFirst");
  CHECK(pod["terminationGracePeriodSeconds"] == 30);
  CHECK(pod["schedulerName"] == "default-scheduler");
  CHECK(pod["securityContext"] == json::object());
  CHECK_FALSE(pod.contains("enableServiceLinks"));  // only a Pod's own spec
  const json& c = pod["containers"][0];
  CHECK(c["imagePullPolicy"] == "Always");
  CHECK(c["terminationMessagePath"] == "/dev/termination-log");
  CHECK(c["terminationMessagePolicy"] == "File");
  CHECK(validate(d, nullptr, kind("apps", "Deployment")).empty());
}

TEST_CASE("pods: pull policy by tag, probes, ports, volumes, limits as requests") {
  json pod = json::parse(R"({"spec": {"containers": [
      {"name": "a", "image": "nginx:1.27", "ports": [{"containerPort": 80}],
       "readinessProbe": {"httpGet": {"port": 80}},
       "resources": {"limits": {"cpu": "1"}}},
      {"name": "b", "image": "registry:5000/app", "imagePullPolicy": "Never"},
      {"name": "c", "image": "busybox@sha256:abc"}],
    "volumes": [{"name": "scratch"}, {"name": "cfg", "configMap": {"name": "x"}}]}})");
  apply_defaults(pod, kind("", "Pod"));
  const json& cs = pod["spec"]["containers"];
  CHECK(pod["spec"]["enableServiceLinks"] == true);
  CHECK(cs[0]["imagePullPolicy"] == "IfNotPresent");
  CHECK(cs[0]["ports"][0]["protocol"] == "TCP");
  CHECK(cs[0]["readinessProbe"] == json::parse(R"({"httpGet": {"port": 80, "path": "/",
      "scheme": "HTTP"}, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1,
      "failureThreshold": 3})"));
  CHECK(cs[0]["resources"]["requests"] == json::parse(R"({"cpu": "1"})"));
  CHECK(cs[1]["imagePullPolicy"] == "Never");
  CHECK(cs[2]["imagePullPolicy"] == "IfNotPresent");
  CHECK(pod["spec"]["volumes"][0]["emptyDir"] == json::object());
  CHECK(pod["spec"]["volumes"][1]["configMap"]["defaultMode"] == 420);
}

TEST_CASE("field errors carry upstream's paths and words") {
  json d = created_deployment();
  json& spec = d["spec"];
  spec["replicas"] = -1;
  spec["template"]["spec"]["containers"] = json::parse(R"([
      {"name": "Web", "image": ""}, {"name": "side", "image": "x", "imagePullPolicy": "Sometimes"},
      {"name": "side", "image": "y", "ports": [{"containerPort": 70000}]}])");
  spec["template"]["spec"]["restartPolicy"] = "OnFailure";
  apply_defaults(d, kind("apps", "Deployment"));
  CHECK(messages(validate(d, nullptr, kind("apps", "Deployment"))) ==
        std::vector<std::string>{
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            "spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported "
            "values: \"Always\"",
            "spec.template.spec.containers[2].name: Duplicate value: \"side\"",
            "spec.template.spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 "
            "label must consist of lower case alphanumeric characters or '-', and must start and "
            "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "spec.template.spec.containers[0].image: Required value",
            "spec.template.spec.containers[1].imagePullPolicy: Unsupported value: \"Sometimes\": "
            "supported values: \"Always\", \"IfNotPresent\", \"Never\"",
            "spec.template.spec.containers[2].ports[0].containerPort: Invalid value: 70000: must "
            "be between 1 and 65535, inclusive"});
}

TEST_CASE("deployment selectors: required, not empty, matching the template, immutable") {
  const MessageType& type = kind("apps", "Deployment");
  json d = created_deployment();
  d["spec"].erase("selector");
  CHECK(messages(validate(d, nullptr, type)) ==
        std::vector<std::string>{"spec.selector: Required value",
                                 "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: "
                                 "`selector` does not match template `labels`"});
  d["spec"]["selector"] = json::parse(R"({"matchLabels": {"app": "other"}})");
  CHECK(messages(validate(d, nullptr, type)) ==
        std::vector<std::string>{"spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: "
                                 "`selector` does not match template `labels`"});
  d["spec"]["selector"] = json::object();
  CHECK(messages(validate(d, nullptr, type)) ==
        std::vector<std::string>{
            "spec.selector: Invalid value: {}: empty selector is invalid for deployment"});
  json old = created_deployment();
  json changed = created_deployment();
  changed["spec"]["selector"]["matchLabels"]["tier"] = "x";
  changed["spec"]["template"]["metadata"]["labels"]["tier"] = "x";
  CHECK(messages(validate(changed, &old, type)) ==
        std::vector<std::string>{"spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"web\","
                                 "\"tier\":\"x\"}}: field is immutable"});
  CHECK(validate(old, &old, type).empty());
}

TEST_CASE("services: defaults, ports required and named, protocols") {
  const MessageType& type = kind("", "Service");
  json svc = json::parse(R"({"spec": {"ports": [{"port": 80}, {"name": "b", "port": 0,
      "protocol": "ICMP"}]}})");
  apply_defaults(svc, type);
  CHECK(svc["spec"]["type"] == "ClusterIP");
  CHECK(svc["spec"]["sessionAffinity"] == "None");
  CHECK(svc["spec"]["internalTrafficPolicy"] == "Cluster");
  CHECK(svc["spec"]["ports"][0]["targetPort"] == 80);
  CHECK(svc["spec"]["ports"][0]["protocol"] == "TCP");
  CHECK(messages(validate(svc, nullptr, type)) ==
        std::vector<std::string>{
            "spec.ports[0].name: Required value",
            "spec.ports[1].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", "
            "\"TCP\", \"UDP\"",
            "spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive"});
  json none = json::parse(R"({"spec": {"type": "NodePort"}})");
  apply_defaults(none, type);
  CHECK(none["spec"]["externalTrafficPolicy"] == "Cluster");
  CHECK(messages(validate(none, nullptr, type)) ==
        std::vector<std::string>{"spec.ports: Required value"});
  json external = json::parse(R"({"spec": {"type": "ExternalName", "externalName": "x.org"}})");
  apply_defaults(external, type);
  CHECK_FALSE(external["spec"].contains("internalTrafficPolicy"));
  CHECK(validate(external, nullptr, type).empty());
}

TEST_CASE("jobs: defaults, generated selector, restartPolicy, immutable template") {
  const MessageType& type = *validation_schemas().kind({"batch", "v1", "Job"});
  json job = json::parse(R"({"metadata": {"name": "pi", "uid": "u-1"}, "spec": {"template":
      {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}}})");
  apply_defaults(job, type);
  const json& spec = job["spec"];
  CHECK(spec["completions"] == 1);
  CHECK(spec["parallelism"] == 1);
  CHECK(spec["backoffLimit"] == 6);
  CHECK(spec["completionMode"] == "NonIndexed");
  CHECK(spec["suspend"] == false);
  CHECK(spec["podReplacementPolicy"] == "TerminatingOrFailed");
  CHECK(spec["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"] == "u-1");
  CHECK(spec["template"]["metadata"]["labels"]["job-name"] == "pi");
  CHECK(messages(validate(job, nullptr, type)) ==
        std::vector<std::string>{"spec.template.spec.restartPolicy: Unsupported value: "
                                 "\"Always\": supported values: \"OnFailure\", \"Never\""});
  json cron = json::parse(R"({"spec": {"jobTemplate": {"spec": {"template": {"spec": {}}}}}})");
  apply_defaults(cron, *validation_schemas().kind({"batch", "v1", "CronJob"}));
  CHECK(cron["spec"]["concurrencyPolicy"] == "Allow");
  CHECK(cron["spec"]["successfulJobsHistoryLimit"] == 3);
  CHECK(cron["spec"]["failedJobsHistoryLimit"] == 1);
  CHECK(messages(
            validate(cron, nullptr, *validation_schemas().kind({"batch", "v1", "CronJob"})))[0] ==
        "spec.schedule: Required value");
}

TEST_CASE("values of the wrong JSON type neither crash nor get entered") {
  json odd = json::parse(R"({"spec": {"containers": "nope", "volumes": [3, null],
      "restartPolicy": 7, "dnsPolicy": {"x": 1}}, "metadata": []})");
  apply_defaults(odd, kind("", "Pod"));
  auto errors = validate(odd, nullptr, kind("", "Pod"));
  CHECK(errors.size() <= 1);
}

TEST_CASE("a pod may not share its process namespace and the host's at once") {
  json d = created_deployment();
  json& spec = d["spec"]["template"]["spec"];
  spec["hostPID"] = true;
  spec["shareProcessNamespace"] = true;
  apply_defaults(d, kind("apps", "Deployment"));
  CHECK(messages(validate(d, nullptr, kind("apps", "Deployment"))) ==
        std::vector<std::string>{
            "spec.template.spec.securityContext.shareProcessNamespace: Invalid value: true: "
            "ShareProcessNamespace and HostPID cannot both be enabled"});
  spec["hostPID"] = false;
  CHECK(messages(validate(d, nullptr, kind("apps", "Deployment"))).empty());
}

}  // namespace
}  // namespace k3c::api

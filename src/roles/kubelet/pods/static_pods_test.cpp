// The static pod source over a temporary manifest directory: names, uids, annotations and
// tolerations as upstream; unchanged files keep their pod, changed and removed files
// terminate it first; the v1 defaults are the kubelet's own (the project's schemas, no API
// server); bad manifests are skipped with upstream's "invalid pod: [...]".
#include "roles/kubelet/pods/static_pods.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "core/yaml_json.h"
#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

struct Dir {
  TempDir dir;
  ManualClock clock;
  StaticPodSource source{dir.path(), "node1", clock};
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir.path() + "/" + name) << text;
  }
};

const char* kWeb = R"(apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  terminationGracePeriodSeconds: 7
  containers: [{name: c, image: busybox}]
)";

TEST_CASE("a manifest becomes a static pod as upstream's kubelet makes it") {
  Dir d;
  CHECK(d.source.scan().empty());  // empty directory
  d.write("web.yaml", kWeb);
  d.write(".hidden.yaml", kWeb);  // dotfiles are ignored
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
  auto pod = d.source.current("default/web-node1");
  REQUIRE(pod);
  const json& m = (*pod)["metadata"];
  CHECK(m["name"] == "web-node1");
  CHECK(m["namespace"] == "default");
  CHECK(m["uid"].get<std::string>().size() == 32);
  CHECK(m["annotations"]["kubernetes.io/config.hash"] == m["uid"]);
  CHECK(m["annotations"]["kubernetes.io/config.source"] == "file");
  CHECK(m["annotations"].contains("kubernetes.io/config.seen"));
  CHECK(m["labels"]["app"] == "web");
  CHECK((*pod)["spec"]["nodeName"] == "node1");
  CHECK((*pod)["spec"]["dnsPolicy"] == "ClusterFirst");
  CHECK((*pod)["spec"]["tolerations"] ==
        json::array({{{"operator", "Exists"}, {"effect", "NoExecute"}}}));
  CHECK((*pod)["status"]["phase"] == "Pending");
  CHECK(d.source.desired_mirror("default/web-node1") == pod);
  CHECK(d.source.uids() == std::map<std::string, std::string>{{m["uid"], "default/web-node1"}});
  // Nothing changed: nothing to do, the same uid.
  CHECK(d.source.scan().empty());
  CHECK((*d.source.current("default/web-node1"))["metadata"]["uid"] == m["uid"]);
}

TEST_CASE("a changed manifest replaces its pod after the old one terminated") {
  Dir d;
  d.write("web.yaml", kWeb);
  d.source.scan();
  const json first = *d.source.current("default/web-node1");
  d.write("web.yaml", std::string(kWeb) + "  restartPolicy: OnFailure\n");
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
  // The old version first, being deleted with its grace period.
  json now = *d.source.current("default/web-node1");
  CHECK(now["metadata"]["uid"] == first["metadata"]["uid"]);
  CHECK(now["metadata"].contains("deletionTimestamp"));
  CHECK(now["metadata"]["deletionGracePeriodSeconds"] == 7);
  CHECK(d.source.uids().size() == 2);
  // The mirror should already show the new version.
  CHECK((*d.source.desired_mirror("default/web-node1"))["spec"]["restartPolicy"] == "OnFailure");
  d.source.terminated("default/web-node1", first["metadata"]["uid"]);
  now = *d.source.current("default/web-node1");
  CHECK(now["metadata"]["uid"] != first["metadata"]["uid"]);
  CHECK_FALSE(now["metadata"].contains("deletionTimestamp"));
  CHECK(d.source.uids().size() == 1);
}

TEST_CASE("a removed manifest terminates its pod, then it is forgotten") {
  Dir d;
  d.write("web.yaml", kWeb);
  d.source.scan();
  const std::string uid = (*d.source.current("default/web-node1"))["metadata"]["uid"];
  std::filesystem::remove(d.dir.path() + "/web.yaml");
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
  CHECK(d.source.current("default/web-node1")->at("metadata").contains("deletionTimestamp"));
  CHECK_FALSE(d.source.desired_mirror("default/web-node1"));
  d.source.terminated("default/web-node1", uid);
  CHECK_FALSE(d.source.current("default/web-node1"));
  CHECK(d.source.uids().empty());
}

TEST_CASE("the v1 defaults are filled in without an API server, as upstream's file source") {
  Dir d;
  d.write("app.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
  - {name: latest, image: busybox, command: [sleep, "3600"]}
  - {name: tagged, image: "busybox:1.36", command: [sleep, "3600"]}
)");
  REQUIRE(d.source.scan() == std::vector<std::string>{"default/app-node1"});
  const json pod = *d.source.current("default/app-node1");
  const json& spec = pod["spec"];
  CHECK(spec["restartPolicy"] == "Always");
  CHECK(spec["dnsPolicy"] == "ClusterFirst");
  CHECK(spec["terminationGracePeriodSeconds"] == 30);
  CHECK(spec["schedulerName"] == "default-scheduler");
  CHECK(spec["enableServiceLinks"] == true);
  CHECK(spec["securityContext"] == json::object());
  CHECK(spec["nodeName"] == "node1");
  const json& latest = spec["containers"][0];
  CHECK(latest["imagePullPolicy"] == "Always");
  CHECK(latest["terminationMessagePath"] == "/dev/termination-log");
  CHECK(latest["terminationMessagePolicy"] == "File");
  CHECK(spec["containers"][1]["imagePullPolicy"] == "IfNotPresent");
  // What only the API server's admission adds is not there, as with upstream's kubelet.
  CHECK_FALSE(spec.contains("priority"));
  CHECK_FALSE(spec.contains("serviceAccountName"));
  CHECK_FALSE(spec.contains("volumes"));
  CHECK(pod["status"] == json{{"phase", "Pending"}});
}

TEST_CASE("invalid manifests are skipped with upstream's field errors") {
  auto schemas = api::SchemaSet::builtin();
  REQUIRE(schemas.is_ok());
  auto check = [&](const std::string& yaml) {
    auto pod = yaml_to_json(yaml);
    REQUIRE(pod.is_ok());
    auto r = default_and_validate_pod(*pod, *schemas);
    REQUIRE_FALSE(r.is_ok());
    CHECK(r.status().code() == Code::kInvalid);
    return r.status().message();
  };
  CHECK(check("apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: default}\n"
              "spec: {containers: []}\n") == "invalid pod: [spec.containers: Required value]");
  CHECK(check("apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name-node1, namespace: default}\n"
              "spec: {containers: [{name: c, image: busybox}]}\n")
            .starts_with("invalid pod: [metadata.name: Invalid value: \"Bad_Name-node1\": a "
                         "lowercase RFC 1123 subdomain must consist of"));
  CHECK(check("apiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: default}\n"
              "spec: {restartPolicy: Sometimes, containers: [{name: c, image: busybox}]}\n") ==
        "invalid pod: [spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
        "\"Always\", \"OnFailure\", \"Never\"]");

  Dir d;
  d.write("a-garbage.yaml", "{{{ not yaml");
  d.write("b-deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n");
  d.write("c-noname.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: []}\n");
  d.write("d-invalid.yaml", std::string(kWeb) + "  restartPolicy: Sometimes\n");
  d.write("e-web.yaml", kWeb);
  d.write("f-same-name.yaml", std::string(kWeb) + "  hostNetwork: true\n");  // web again
  d.write("g-nocontainers.yaml",
          "apiVersion: v1\nkind: Pod\nmetadata: {name: empty}\nspec: {containers: []}\n");
  d.write("h-badname.yaml",
          "apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name}\n"
          "spec: {containers: [{name: c, image: busybox}]}\n");
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
  CHECK(d.source.uids().size() == 1);
  CHECK_FALSE((*d.source.current("default/web-node1"))["spec"].contains("hostNetwork"));
  // A change that does not validate leaves nothing running from that file (as upstream:
  // the file source no longer has the pod).
  d.write("e-web.yaml", std::string(kWeb) + "  restartPolicy: Sometimes\n");
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
  CHECK(d.source.current("default/web-node1")->at("metadata").contains("deletionTimestamp"));
}

TEST_CASE("a missing manifest directory holds no pods") {
  ManualClock clock;
  StaticPodSource source("/no/such/dir", "n", clock);
  CHECK(source.scan().empty());
}

}  // namespace
}  // namespace k3c::kubelet

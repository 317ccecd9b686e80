// The static pod source over a temporary manifest directory: names, uids, annotations and
// tolerations as upstream; unchanged files keep their pod, changed and removed files
// terminate it first; bad manifests are skipped; the API's defaults are taken.
#include "roles/kubelet/pods/static_pods.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

struct Dir {
  TempDir dir;
  ManualClock clock;
  bool api_down = false;
  StaticPodSource source{dir.path(), "node1", clock, [this](const json& pod) -> Result<json> {
                           if (api_down) return error(Code::kServiceUnavailable, "no API yet");
                           if (pod["spec"].value("restartPolicy", "") == "Sometimes")
                             return error(Code::kInvalid,
                                          "Pod \"x\" is invalid: spec.restartPolicy: Unsupported "
                                          "value: \"Sometimes\"");
                           json defaulted = pod;
                           defaulted["spec"]["dnsPolicy"] = "ClusterFirst";  // as the API would
                           return defaulted;
                         }};
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

TEST_CASE("bad manifests are skipped; an API that is not up yet keeps what runs") {
  Dir d;
  d.write("a-garbage.yaml", "{{{ not yaml");
  d.write("b-deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n");
  d.write("c-noname.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: []}\n");
  d.write("d-invalid.yaml", std::string(kWeb) + "  restartPolicy: Sometimes\n");
  d.write("e-web.yaml", kWeb);
  d.write("f-same-name.yaml", std::string(kWeb) + "  hostNetwork: true\n");  // web again
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
  CHECK(d.source.uids().size() == 1);
  CHECK_FALSE((*d.source.current("default/web-node1"))["spec"].contains("hostNetwork"));
  // A change that cannot be defaulted now (no API) leaves the running pod as it is.
  d.api_down = true;
  d.write("e-web.yaml", std::string(kWeb) + "  restartPolicy: Never\n");
  CHECK(d.source.scan().empty());
  CHECK_FALSE(d.source.current("default/web-node1")->at("metadata").contains("deletionTimestamp"));
  d.api_down = false;
  CHECK(d.source.scan() == std::vector<std::string>{"default/web-node1"});
}

TEST_CASE("a missing manifest directory holds no pods") {
  ManualClock clock;
  StaticPodSource source("/no/such/dir", "n", clock, [](const json& p) -> Result<json> { return p; });
  CHECK(source.scan().empty());
}

}  // namespace
}  // namespace k3c::kubelet

// The control plane's pod transform: what it drops, what it keeps.
#include "client/cache_transforms.h"

#include <catch2/catch.hpp>

namespace k3c::client {
namespace {

using nlohmann::json;

// A pod as the ServiceAccount admission plugin and a kubelet leave it (trimmed to the parts
// the transform looks at).
json transform_pod() {
  return json::parse(R"({
    "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
      "dnsPolicy": "ClusterFirst", "enableServiceLinks": true, "serviceAccount": "default",
      "serviceAccountName": "default", "terminationGracePeriodSeconds": 30, "securityContext": {},
      "restartPolicy": "Always", "schedulerName": "default-scheduler",
      "containers": [{"name": "app", "image": "nginx", "imagePullPolicy": "Always",
          "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
          "resources": {"requests": {"cpu": "10m"}}, "volumeMounts": [
          {"name": "kube-api-access-x2v9q", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true},
          {"name": "data", "mountPath": "/data"}]}],
      "initContainers": [{"name": "init", "image": "busybox", "volumeMounts": [
          {"name": "kube-api-access-x2v9q", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}],
      "volumes": [
          {"name": "kube-api-access-x2v9q", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
          {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
          {"name": "kube-api-access-mine", "configMap": {"name": "not-projected"}}]},
    "status": {
      "phase": "Running",
      "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null,
                      "lastTransitionTime": "2026-12-04T21:00:00Z"},
                     {"type": "Custom", "status": "True", "lastProbeTime": "2026-12-04T21:00:00Z"}],
      "containerStatuses": [{"name": "app", "image": "nginx", "imageID": "sha256:ab", "containerID": "k3c://cd",
                             "ready": true, "restartCount": 2, "state": {"terminated": {"exitCode": 1}}}],
      "initContainerStatuses": [{"name": "init", "imageID": "sha256:ef", "containerID": "k3c://01"}]}
  })");
}

TEST_CASE("the control plane's pods lose the token volume and the runtime ids, nothing else") {
  CacheTransform t = control_plane_pods();
  REQUIRE_FALSE(t.name.empty());
  json p = transform_pod();
  CHECK(t.apply(p));
  // The token volume and its mounts go; a claim and a volume that only looks like it stay.
  CHECK(p["spec"]["volumes"] ==
        json::parse(R"([{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
                        {"name": "kube-api-access-mine", "configMap": {"name": "not-projected"}}])"));
  CHECK(p["spec"]["containers"][0]["volumeMounts"] ==
        json::parse(R"([{"name": "data", "mountPath": "/data"}])"));
  CHECK_FALSE(p["spec"]["initContainers"][0].contains("volumeMounts"));  // none left
  // The defaults nobody reads go; what the scheduler and the Job controller read stays.
  CHECK(p["spec"]["containers"][0] ==
        json::parse(R"({"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "10m"}},
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}]})"));
  for (const char* gone : {"dnsPolicy", "enableServiceLinks", "serviceAccount",
                           "terminationGracePeriodSeconds", "securityContext"}) {
    CHECK_FALSE(p["spec"].contains(gone));
  }
  CHECK(p["spec"]["serviceAccountName"] == "default");
  CHECK(p["spec"]["restartPolicy"] == "Always");
  CHECK(p["spec"]["schedulerName"] == "default-scheduler");
  // A null lastProbeTime goes, a set one stays.
  CHECK(p["status"]["conditions"] == json::parse(R"([{"type": "Ready", "status": "True",
                         "lastTransitionTime": "2026-12-04T21:00:00Z"},
                        {"type": "Custom", "status": "True",
                         "lastProbeTime": "2026-12-04T21:00:00Z"}])"));
  // What controllers read of a container status stays.
  CHECK(p["status"]["containerStatuses"][0] ==
        json::parse(R"({"name": "app", "image": "nginx", "ready": true, "restartCount": 2,
                        "state": {"terminated": {"exitCode": 1}}})"));
  CHECK(p["status"]["initContainerStatuses"][0] == json{{"name", "init"}});
  json untouched = transform_pod();
  CHECK(p["metadata"] == untouched["metadata"]);
  CHECK(p["status"]["phase"] == "Running");
}

TEST_CASE("the pod transform leaves a pod without those parts as it is, malformed ones too") {
  CacheTransform t = control_plane_pods();
  for (json p :
       {json::parse(R"({"spec": {"volumes": [], "containers": [{"name": "a"}]}})"),
        json::parse(R"({"spec": {"volumes": "x", "containers": 3}, "status": []})"),
        json::parse(R"({"spec": {"volumes": [{"name": "kube-api-access-1", "projected": {}}],
                                          "containers": [{"volumeMounts": [7, {"name": 1}]}, "x"]}})"),
        json::parse(R"({"spec": {"securityContext": "x", "containers": [1, {"imagePullPolicy": 2}]},
                        "status": {"conditions": [1, {"lastProbeTime": "x"}, []]}})"),
        json::object(), json::array()}) {
    json before = p;
    CHECK(t.apply(p));  // trimmed, if of nothing
    if (before.is_object() && before.contains("spec") &&
        before["spec"].value("securityContext", json()) == "x") {
      // A set securityContext stays; a container's imagePullPolicy goes whatever its value.
      CHECK(p["spec"]["securityContext"] == "x");
      CHECK(p["spec"]["containers"] == json::parse(R"([1, {}])"));
      CHECK(p["status"] == before["status"]);
    } else if (before.contains("spec") && before["spec"]["volumes"].is_array() &&
               !before["spec"]["volumes"].empty()) {
      CHECK_FALSE(p["spec"].contains("volumes"));  // the token volume was the only one
      CHECK(p["spec"]["containers"] == before["spec"]["containers"]);
    } else {
      CHECK(p == before);
    }
  }
}

TEST_CASE("pods bound to the node left whole stay whole; others on that server are trimmed") {
  CacheTransform t = control_plane_pods("server-1");
  json mine = transform_pod();
  mine["spec"]["nodeName"] = "server-1";
  json before = mine;
  CHECK_FALSE(t.apply(mine));
  CHECK(mine == before);
  json elsewhere = transform_pod();
  elsewhere["spec"]["nodeName"] = "agent-2";
  CHECK(t.apply(elsewhere));
  CHECK(elsewhere["spec"]["volumes"].size() == 2);
  json pending = transform_pod();
  CHECK(t.apply(pending));
}

}  // namespace
}  // namespace k3c::client

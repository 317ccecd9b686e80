// The cell rules of the kind printers, against objects as the cache holds them. Expected
// cells are what upstream's v1.32 printers produce for the same objects.
#include <catch2/catch.hpp>

#include "core/ids.h"
#include "roles/apiserver/table.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const WallTime kNow = *parse_rfc3339("2026-11-29T12:10:00Z");

json meta(const std::string& name, json extra = json::object()) {
  json m = {{"name", name}, {"creationTimestamp", "2026-11-29T12:00:00Z"}};
  m.update(extra);
  return m;
}

json row_of(std::string_view group, std::string_view kind, const json& object,
            TableOptions options = {}) {
  std::string text = object.dump();
  json t = make_table(group, kind, {&text}, "1", "", options, kNow);
  REQUIRE(t["rows"].size() == 1);
  return t["rows"][0];
}

json cells(std::string_view group, std::string_view kind, const json& object) {
  return row_of(group, kind, object)["cells"];
}

// "Name:type:priority" for each column, and "format=name" columns marked with a star.
std::vector<std::string> header(std::string_view group, std::string_view kind) {
  std::vector<std::string> out;
  for (const auto& c : printer_for(group, kind).definitions) {
    out.push_back(c["name"].get<std::string>() + ":" + c["type"].get<std::string>() + ":" +
                  std::to_string(c["priority"].get<int>()) + (c["format"] == "name" ? "*" : ""));
  }
  return out;
}

TEST_CASE("column names, types, formats and priorities follow upstream") {
  using V = std::vector<std::string>;
  CHECK(header("", "Pod") == V{"Name:string:0*", "Ready:string:0", "Status:string:0",
                               "Restarts:string:0", "Age:string:0", "IP:string:1", "Node:string:1",
                               "Nominated Node:string:1", "Readiness Gates:string:1"});
  CHECK(header("apps", "Deployment") ==
        V{"Name:string:0*", "Ready:string:0", "Up-to-date:string:0", "Available:string:0",
          "Age:string:0", "Containers:string:1", "Images:string:1", "Selector:string:1"});
  CHECK(header("batch", "Job") == V{"Name:string:0*", "Status:string:0", "Completions:string:0",
                                    "Duration:string:0", "Age:string:0", "Containers:string:1",
                                    "Images:string:1", "Selector:string:1"});
  CHECK(header("batch", "CronJob") ==
        V{"Name:string:0*", "Schedule:string:0", "Timezone:string:0", "Suspend:boolean:0",
          "Active:integer:0", "Last Schedule:string:0", "Age:string:0", "Containers:string:1",
          "Images:string:1", "Selector:string:1"});
  CHECK(header("", "Event") == V{"Last Seen:string:0", "Type:string:0", "Reason:string:0",
                                 "Object:string:0", "Subobject:string:1", "Source:string:1",
                                 "Message:string:0", "First Seen:string:1", "Count:string:1",
                                 "Name:string:1*"});
  CHECK(header("events.k8s.io", "Event") == header("", "Event"));
  CHECK(header("storage.k8s.io", "VolumeAttachment") == V{"Name:string:0*", "Attacher:string:0*",
                                                          "PV:string:0", "Node:string:0",
                                                          "Attached:boolean:0", "Age:string:0"});
  CHECK(header("", "ResourceQuota") ==
        V{"Name:string:0*", "Age:string:0", "Request:string:0", "Limit:string:0"});
  CHECK(header("rbac.authorization.k8s.io", "Role") == V{"Name:string:0*", "Created At:date:0"});
  CHECK(header("apiextensions.k8s.io", "CustomResourceDefinition") ==
        V{"Name:string:0*", "Created At:date:0"});
  CHECK(header("example.com", "Widget") == V{"Name:string:0*", "Age:string:0"});
}

TEST_CASE("pod STATUS, READY and RESTARTS as upstream's printPod") {
  json pod = {{"metadata", meta("web")},
              {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "a"}}, {{"name", "b"}}}}}},
              {"status",
               {{"phase", "Running"},
                {"podIPs", {{{"ip", "10.42.0.5"}}, {{"ip", "fd00::5"}}}},
                {"containerStatuses",
                 {{{"name", "a"},
                   {"ready", true},
                   {"restartCount", 2},
                   {"lastState", {{"terminated", {{"finishedAt", "2026-11-29T12:07:00Z"}}}}},
                   {"state", {{"running", json::object()}}}},
                  {{"name", "b"},
                   {"ready", false},
                   {"restartCount", 1},
                   {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}}}}}};
  CHECK(cells("", "Pod", pod) == json({"web", "1/2", "CrashLoopBackOff", "3 (3m ago)", "10m",
                                       "10.42.0.5", "n1", "<none>", "<none>"}));

  SECTION("init containers") {
    pod["spec"]["initContainers"] = {{{"name", "setup"}}, {{"name", "migrate"}}};
    pod["status"]["initContainerStatuses"] = {
        {{"name", "setup"}, {"state", {{"terminated", {{"exitCode", 0}}}}}},
        {{"name", "migrate"}, {"state", {{"waiting", {{"reason", "PodInitializing"}}}}}}};
    CHECK(cells("", "Pod", pod)[2] == "Init:1/2");
    pod["status"]["initContainerStatuses"][1]["state"] = {{"terminated", {{"exitCode", 3}}}};
    CHECK(cells("", "Pod", pod)[2] == "Init:ExitCode:3");
  }
  SECTION("a sidecar counts as a container") {
    pod["spec"]["initContainers"] = {{{"name", "proxy"}, {"restartPolicy", "Always"}}};
    pod["status"]["initContainerStatuses"] = {{{"name", "proxy"},
                                               {"started", true},
                                               {"ready", true},
                                               {"state", {{"running", json::object()}}}}};
    CHECK(cells("", "Pod", pod)[1] == "2/3");
  }
  SECTION("deleting, and finished pods") {
    pod["metadata"]["deletionTimestamp"] = "2026-11-29T12:09:00Z";
    CHECK(cells("", "Pod", pod)[2] == "Terminating");
    pod["status"] = {{"phase", "Succeeded"}, {"reason", ""}};
    auto row = row_of("", "Pod", pod);
    CHECK(row["cells"][2] == "Succeeded");
    CHECK(row["conditions"][0]["type"] == "Completed");
    CHECK(row["conditions"][0]["reason"] == "Succeeded");
  }
  SECTION("gated and completed-but-running") {
    pod["status"] = {{"phase", "Pending"},
                     {"conditions", {{{"type", "PodScheduled"}, {"reason", "SchedulingGated"}}}}};
    CHECK(cells("", "Pod", pod)[2] == "SchedulingGated");
    pod["status"] = {{"phase", "Running"},
                     {"containerStatuses",
                      {{{"name", "a"}, {"ready", true}, {"state", {{"running", json::object()}}}},
                       {{"name", "b"}, {"state", {{"terminated", {{"reason", "Completed"}}}}}}}}};
    CHECK(cells("", "Pod", pod)[2] == "NotReady");
  }
}

TEST_CASE("workload cells") {
  json labels = {{"app", "web"}};
  json tmpl = {{"metadata", {{"labels", labels}}},
               {"spec",
                {{"containers",
                  {{{"name", "c"}, {"image", "busybox"}}, {{"name", "d"}, {"image", "nginx"}}}}}}};
  SECTION("deployment selector is bare, replica set's is <none> when empty") {
    json d = {{"metadata", meta("web")},
              {"spec", {{"replicas", 3}, {"template", tmpl}, {"selector", json::object()}}},
              {"status", {{"readyReplicas", 1}, {"updatedReplicas", 2}, {"availableReplicas", 1}}}};
    CHECK(cells("apps", "Deployment", d) ==
          json({"web", "1/3", 2, 1, "10m", "c,d", "busybox,nginx", ""}));
    CHECK(cells("apps", "ReplicaSet", d)[7] == "<none>");
    d["spec"]["selector"] = {{"matchLabels", {{"tier", "fe"}, {"app", "web"}}},
                             {"matchExpressions",
                              {{{"key", "env"}, {"operator", "In"}, {"values", {"prod", "dev"}}},
                               {{"key", "legacy"}, {"operator", "DoesNotExist"}}}}};
    CHECK(cells("apps", "Deployment", d)[7] == "app=web,env in (dev,prod),!legacy,tier=fe");
  }
  SECTION("daemon set, stateful set, controller revision") {
    json ds = {{"metadata", meta("agent")},
               {"spec",
                {{"template", {{"spec", {{"nodeSelector", {{"disk", "ssd"}}}}}}},
                 {"selector", {{"matchLabels", labels}}}}},
               {"status", {{"desiredNumberScheduled", 2}, {"numberReady", 1}}}};
    CHECK(cells("apps", "DaemonSet", ds) ==
          json({"agent", 2, 0, 1, 0, 0, "disk=ssd", "10m", "", "", "app=web"}));
    json sts = {{"metadata", meta("db")}, {"spec", {{"replicas", 2}, {"template", tmpl}}}};
    CHECK(cells("apps", "StatefulSet", sts) == json({"db", "0/2", "10m", "c,d", "busybox,nginx"}));
    json cr = {{"metadata", meta("db-5d8", {{"ownerReferences",
                                             {{{"apiVersion", "apps/v1"},
                                               {"kind", "StatefulSet"},
                                               {"name", "db"},
                                               {"controller", true}}}}})},
               {"revision", 4}};
    CHECK(cells("apps", "ControllerRevision", cr) ==
          json({"db-5d8", "statefulset.apps/db", 4, "10m"}));
  }
  SECTION("jobs") {
    json job = {{"metadata", meta("once")},
                {"spec", {{"completions", 3}, {"template", tmpl}}},
                {"status", {{"succeeded", 1}, {"startTime", "2026-11-29T12:05:00Z"}}}};
    CHECK(cells("batch", "Job", job) ==
          json({"once", "Running", "1/3", "5m", "10m", "c,d", "busybox,nginx", "<none>"}));
    job["spec"].erase("completions");
    job["spec"]["parallelism"] = 2;
    job["status"]["completionTime"] = "2026-11-29T12:06:30Z";
    job["status"]["conditions"] = {{{"type", "Complete"}, {"status", "True"}}};
    auto c = cells("batch", "Job", job);
    CHECK(c[1] == "Complete");
    CHECK(c[2] == "1/1 of 2");
    CHECK(c[3] == "90s");
    job["status"] = {{"conditions", {{{"type", "Suspended"}, {"status", "True"}}}}};
    CHECK(cells("batch", "Job", job)[1] == "Suspended");
    CHECK(cells("batch", "Job", job)[3] == "");
  }
  SECTION("cron jobs") {
    json cj = {
        {"metadata", meta("nightly")},
        {"spec",
         {{"schedule", "0 3 * * *"},
          {"suspend", false},
          {"jobTemplate", {{"spec", {{"template", tmpl}}}}}}},
        {"status", {{"lastScheduleTime", "2026-11-29T12:09:00Z"}, {"active", {{{"name", "j"}}}}}}};
    CHECK(cells("batch", "CronJob", cj) == json({"nightly", "0 3 * * *", "<none>", "False", 1,
                                                 "60s", "10m", "c,d", "busybox,nginx", "<none>"}));
  }
  SECTION("autoscalers, v2 and v1") {
    json v2 = {
        {"metadata", meta("web")},
        {"spec",
         {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
          {"minReplicas", 1},
          {"maxReplicas", 5},
          {"metrics",
           {{{"type", "Resource"},
             {"resource",
              {{"name", "cpu"},
               {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}},
            {{"type", "Resource"},
             {"resource",
              {{"name", "memory"},
               {"target", {{"type", "AverageValue"}, {"averageValue", "100Mi"}}}}}},
            {{"type", "Pods"},
             {"pods", {{"metric", {{"name", "qps"}}}, {"target", {{"averageValue", "10"}}}}}}}}}},
        {"status",
         {{"currentReplicas", 2},
          {"currentMetrics",
           {{{"type", "Resource"},
             {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", 12}}}}}}}}}}};
    CHECK(cells("autoscaling", "HorizontalPodAutoscaler", v2) ==
          json({"web", "Deployment/web", "cpu: 12%/80%, memory: <unknown>/100Mi + 1 more...", "1",
                5, 2, "10m"}));
    json v1 = {{"metadata", meta("web")},
               {"spec",
                {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
                 {"maxReplicas", 3},
                 {"targetCPUUtilizationPercentage", 50}}}};
    CHECK(cells("autoscaling", "HorizontalPodAutoscaler", v1) ==
          json({"web", "Deployment/web", "cpu: <unknown>/50%", "<unset>", 3, 0, "10m"}));
  }
  SECTION("disruption budgets") {
    json pdb = {{"metadata", meta("web")},
                {"spec", {{"minAvailable", "50%"}}},
                {"status", {{"disruptionsAllowed", 1}}}};
    CHECK(cells("policy", "PodDisruptionBudget", pdb) == json({"web", "50%", "N/A", 1, "10m"}));
  }
}

TEST_CASE("core kinds") {
  SECTION("service EXTERNAL-IP per type") {
    json svc = {{"metadata", meta("lb")},
                {"spec",
                 {{"type", "LoadBalancer"},
                  {"clusterIPs", {"10.43.0.9"}},
                  {"ports", {{{"port", 80}, {"nodePort", 30080}, {"protocol", "TCP"}}}}}}};
    CHECK(cells("", "Service", svc) ==
          json({"lb", "LoadBalancer", "10.43.0.9", "<pending>", "80:30080/TCP", "10m", "<none>"}));
    svc["status"] = {
        {"loadBalancer", {{"ingress", {{{"ip", "192.0.2.9"}}, {{"hostname", "a.example"}}}}}}};
    svc["spec"]["externalIPs"] = {"198.51.100.1"};
    CHECK(cells("", "Service", svc)[3] == "192.0.2.9,a.example,198.51.100.1");
    json name = {{"metadata", meta("ext")},
                 {"spec", {{"type", "ExternalName"}, {"externalName", "db.example"}}}};
    CHECK(cells("", "Service", name) ==
          json({"ext", "ExternalName", "<none>", "db.example", "<none>", "10m", "<none>"}));
  }
  SECTION("endpoints list three, then a count") {
    json ep = {{"metadata", meta("web")},
               {"subsets",
                {{{"addresses", {{{"ip", "10.42.0.1"}}, {{"ip", "10.42.0.2"}}}},
                  {"ports", {{{"port", 80}}, {{"port", 443}}}}}}}};
    CHECK(cells("", "Endpoints", ep)[1] == "10.42.0.1:80,10.42.0.2:80,10.42.0.1:443 + 1 more...");
    CHECK(cells("", "Endpoints", json{{"metadata", meta("none")}})[1] == "<none>");
  }
  SECTION("nodes") {
    json node = {{"metadata", meta("n1", {{"labels",
                                           {{"node-role.kubernetes.io/master", ""},
                                            {"node-role.kubernetes.io/control-plane", ""}}}})},
                 {"spec", {{"unschedulable", true}}},
                 {"status",
                  {{"conditions", {{{"type", "Ready"}, {"status", "Unknown"}}}},
                   {"nodeInfo", {{"kubeletVersion", "v1.32.0+k3c1"}}},
                   {"addresses", {{{"type", "InternalIP"}, {"address", "192.168.1.5"}}}}}}};
    CHECK(cells("", "Node", node) ==
          json({"n1", "NotReady,SchedulingDisabled", "control-plane,master", "10m", "v1.32.0+k3c1",
                "192.168.1.5", "<none>", "<unknown>", "<unknown>", "<unknown>"}));
  }
  SECTION("events, core and events.k8s.io") {
    json ev = {
        {"metadata", meta("web.1")},
        {"involvedObject", {{"kind", "Pod"}, {"name", "web"}, {"fieldPath", "spec.containers{c}"}}},
        {"reason", "Pulled"},
        {"message", " pulled \n"},
        {"type", "Normal"},
        {"source", {{"component", "kubelet"}, {"host", "n1"}}},
        {"firstTimestamp", "2026-11-29T12:01:00Z"},
        {"lastTimestamp", "2026-11-29T12:09:30Z"},
        {"count", 4}};
    CHECK(cells("", "Event", ev) ==
          json({"30s", "Normal", "Pulled", "pod/web", "spec.containers{c}", "kubelet, n1", "pulled",
                "9m", 4, "web.1"}));
    json v1 = {{"metadata", meta("web.2")},
               {"regarding", {{"kind", "Deployment"}, {"name", "web"}}},
               {"reason", "ScalingReplicaSet"},
               {"note", "Scaled up"},
               {"type", "Normal"},
               {"reportingController", "deployment-controller"},
               {"eventTime", "2026-11-29T12:08:00.000000Z"}};
    CHECK(cells("events.k8s.io", "Event", v1) ==
          json({"2m", "Normal", "ScalingReplicaSet", "deployment/web", "", "deployment-controller",
                "Scaled up", "2m", 1, "web.2"}));
  }
  SECTION("volumes and claims") {
    json pv = {{"metadata", meta("pv1")},
               {"spec",
                {{"capacity", {{"storage", "5Gi"}}},
                 {"accessModes", {"ReadWriteMany", "ReadWriteOnce"}},
                 {"persistentVolumeReclaimPolicy", "Retain"},
                 {"storageClassName", "fast"},
                 {"claimRef", {{"namespace", "default"}, {"name", "data"}}}}},
               {"status", {{"phase", "Bound"}}}};
    CHECK(cells("", "PersistentVolume", pv) ==
          json({"pv1", "5Gi", "RWO,RWX", "Retain", "Bound", "default/data", "fast", "<unset>", "",
                "10m", "<unset>"}));
    json pvc = {{"metadata", meta("data")},
                {"spec", {{"storageClassName", "fast"}, {"volumeMode", "Filesystem"}}},
                {"status", {{"phase", "Pending"}}}};
    CHECK(cells("", "PersistentVolumeClaim", pvc) ==
          json({"data", "Pending", "", "", "", "fast", "<unset>", "10m", "Filesystem"}));
  }
  SECTION("quotas, templates, small kinds") {
    json rq = {{"metadata", meta("q")},
               {"status",
                {{"hard", {{"pods", "10"}, {"limits.cpu", "2"}, {"requests.memory", "1Gi"}}},
                 {"used", {{"pods", "3"}}}}}};
    CHECK(cells("", "ResourceQuota", rq) ==
          json({"q", "10m", "pods: 3/10, requests.memory: 0/1Gi", "limits.cpu: 0/2"}));
    json cm = {{"metadata", meta("c")}, {"data", {{"a", "1"}}}, {"binaryData", {{"b", "AA=="}}}};
    CHECK(cells("", "ConfigMap", cm) == json({"c", 2, "10m"}));
    json pt = {{"metadata", meta("t")},
               {"template",
                {{"metadata", {{"labels", {{"b", "2"}, {"a", "1"}}}}},
                 {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}}}};
    CHECK(cells("", "PodTemplate", pt) == json({"t", "c", "busybox", "a=1,b=2"}));
  }
}

TEST_CASE("cluster-level kinds") {
  SECTION("storage classes mark the default") {
    json sc = {{"metadata",
                meta("local",
                     {{"annotations", {{"storageclass.kubernetes.io/is-default-class", "true"}}}})},
               {"provisioner", "rancher.io/local-path"},
               {"volumeBindingMode", "WaitForFirstConsumer"}};
    CHECK(cells("storage.k8s.io", "StorageClass", sc) ==
          json({"local (default)", "rancher.io/local-path", "Delete", "WaitForFirstConsumer", false,
                "10m"}));
  }
  SECTION("bindings list their subjects with -o wide") {
    json rb = {{"metadata", meta("read")},
               {"roleRef", {{"kind", "ClusterRole"}, {"name", "view"}}},
               {"subjects",
                {{{"kind", "User"}, {"name", "alice"}},
                 {{"kind", "ServiceAccount"}, {"namespace", "ci"}, {"name", "bot"}},
                 {{"kind", "User"}, {"name", "bob"}}}}};
    CHECK(cells("rbac.authorization.k8s.io", "RoleBinding", rb) ==
          json({"read", "ClusterRole/view", "10m", "alice, bob", "", "ci/bot"}));
  }
  SECTION("roles use the default convertor") {
    json role = {{"metadata", meta("reader")}};
    CHECK(cells("rbac.authorization.k8s.io", "Role", role) ==
          json({"reader", "2026-11-29T12:00:00Z"}));
  }
  SECTION("certificate signing requests") {
    json csr = {
        {"metadata", meta("req")},
        {"spec",
         {{"signerName", "kubernetes.io/kube-apiserver-client"},
          {"username", "alice"},
          {"expirationSeconds", 86400}}},
        {"status",
         {{"conditions", {{{"type", "Approved"}, {"status", "True"}}}}, {"certificate", "Zm9v"}}}};
    CHECK(cells("certificates.k8s.io", "CertificateSigningRequest", csr) ==
          json({"req", "10m", "kubernetes.io/kube-apiserver-client", "alice", "24h",
                "Approved,Issued"}));
  }
  SECTION("priority classes, CSI drivers, admission") {
    json pc = {{"metadata", meta("high")}, {"value", 1000}, {"preemptionPolicy", "Never"}};
    CHECK(cells("scheduling.k8s.io", "PriorityClass", pc) ==
          json({"high", 1000, false, "10m", "Never"}));
    json driver = {{"metadata", meta("csi.example")},
                   {"spec", {{"volumeLifecycleModes", {"Persistent"}}}}};
    CHECK(cells("storage.k8s.io", "CSIDriver", driver) ==
          json({"csi.example", true, false, false, "<unset>", false, "Persistent", "10m"}));
    json vapb = {{"metadata", meta("b")},
                 {"spec", {{"policyName", "p"}, {"paramRef", {{"name", "limits"}}}}}};
    CHECK(cells("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", vapb) ==
          json({"b", "p", "*/limits", "10m"}));
  }
  SECTION("ingresses") {
    json ing = {{"metadata", meta("web")},
                {"spec",
                 {{"ingressClassName", "traefik"},
                  {"rules",
                   {{{"host", "a.example"}},
                    {{"host", "b.example"}},
                    json::object(),
                    {{"host", "c.example"}},
                    {{"host", "d.example"}}}},
                  {"tls", {{{"hosts", {"a.example"}}}}}}}};
    CHECK(cells("networking.k8s.io", "Ingress", ing) ==
          json({"web", "traefik", "a.example,b.example,c.example + 2 more...", "", "80, 443",
                "10m"}));
  }
}

TEST_CASE("watch events after the first carry no column definitions") {
  json cm = {{"metadata", meta("c")}};
  std::string text = cm.dump();
  json first = make_table("", "ConfigMap", {&text}, "1", "", {}, kNow);
  json later = make_table("", "ConfigMap", {&text}, "1", "", {IncludeObject::kNone, true}, kNow);
  CHECK(first["columnDefinitions"].size() == 3);
  CHECK(later.contains("columnDefinitions"));
  CHECK(later["columnDefinitions"].is_null());
  CHECK_FALSE(later["rows"][0].contains("object"));
  CHECK(later.dump().find(R"("columnDefinitions":null)") != std::string::npos);
}

}  // namespace
}  // namespace k3c::apiserver

// Table tests for the admission plugins' rules: LimitRanger, ResourceQuota, Priority,
// DefaultTolerationSeconds and DefaultStorageClass (the pure functions behind
// admission_plugins.h).
#include <catch2/catch.hpp>

#include "roles/apiserver/admission_plugins.h"
#include "roles/apiserver/limit_ranger.h"
#include "roles/apiserver/pod_admission.h"

using namespace k3c::apiserver;
using nlohmann::json;

namespace {

json pod_with(json resources, const std::string& name = "web") {
  return {
      {"metadata", {{"name", "p"}}},
      {"spec", {{"containers", {{{"name", name}, {"image", "nginx"}, {"resources", resources}}}}}}};
}

json limit_range(json items) {
  return {{"metadata", {{"name", "limits"}}}, {"spec", {{"limits", items}}}};
}

json quota(json hard, json used, json scopes = nullptr) {
  json q = {{"metadata", {{"name", "q"}}},
            {"spec", {{"hard", hard}}},
            {"status", {{"hard", hard}, {"used", used}}}};
  if (!scopes.is_null()) q["spec"]["scopes"] = scopes;
  return q;
}

}  // namespace

TEST_CASE("LimitRanger: container defaults and the annotation") {
  json range = limit_range({{{"type", "Container"},
                             {"default", {{"cpu", "500m"}, {"memory", "256Mi"}}},
                             {"defaultRequest", {{"cpu", "100m"}}}}});
  struct Row {
    json resources;
    json want_requests, want_limits;
    std::string note;
  };
  std::vector<Row> rows = {
      {json::object(),
       {{"cpu", "100m"}},
       {{"cpu", "500m"}, {"memory", "256Mi"}},
       "LimitRanger plugin set: cpu request for container web; cpu, memory limit for container "
       "web"},
      {{{"requests", {{"cpu", "1"}}}, {"limits", {{"cpu", "2"}}}},
       {{"cpu", "1"}},
       {{"cpu", "2"}, {"memory", "256Mi"}},
       "LimitRanger plugin set: memory limit for container web"},
      {{{"requests", {{"cpu", "1"}}}, {"limits", {{"cpu", "2"}, {"memory", "1Gi"}}}},
       {{"cpu", "1"}},
       {{"cpu", "2"}, {"memory", "1Gi"}},
       ""},
  };
  for (const auto& row : rows) {
    json pod = pod_with(row.resources);
    limit_range_defaults(pod, {range});
    const json& res = pod["spec"]["containers"][0]["resources"];
    CHECK(res["requests"] == row.want_requests);
    CHECK(res["limits"] == row.want_limits);
    json note = pod["metadata"]
                    .value("annotations", json::object())
                    .value("kubernetes.io/limit-ranger", json(""));
    CHECK(note == row.note);
  }
  json with_init = pod_with(json::object());
  with_init["spec"]["initContainers"] = {{{"name", "setup"}, {"image", "busybox"}}};
  limit_range_defaults(with_init, {range});
  CHECK(with_init["spec"]["initContainers"][0]["resources"]["requests"]["cpu"] == "100m");
  CHECK(with_init["metadata"]["annotations"]["kubernetes.io/limit-ranger"] ==
        "LimitRanger plugin set: cpu request for container web; cpu, memory limit for container "
        "web; cpu request for init container setup; cpu, memory limit for init container setup");
}

TEST_CASE("LimitRanger: min, max and ratio with upstream's messages") {
  struct Row {
    json item;
    json resources;
    std::string want;
  };
  std::vector<Row> rows = {
      {{{"type", "Container"}, {"max", {{"cpu", "1"}}}},
       {{"requests", {{"cpu", "500m"}}}, {"limits", {{"cpu", "2"}}}},
       "maximum cpu usage per Container is 1, but limit is 2."},
      {{{"type", "Container"}, {"max", {{"cpu", "1"}}}},
       {{"requests", {{"cpu", "500m"}}}},
       "maximum cpu usage per Container is 1.  No limit is specified."},
      {{{"type", "Container"}, {"min", {{"memory", "64Mi"}}}},
       {{"requests", {{"memory", "32Mi"}}}},
       "minimum memory usage per Container is 64Mi, but request is 32Mi."},
      {{{"type", "Container"}, {"min", {{"memory", "64Mi"}}}},
       json::object(),
       "minimum memory usage per Container is 64Mi.  No request is specified."},
      {{{"type", "Container"}, {"maxLimitRequestRatio", {{"cpu", "2"}}}},
       {{"requests", {{"cpu", "250m"}}}, {"limits", {{"cpu", "1"}}}},
       "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000."},
      {{{"type", "Container"}, {"maxLimitRequestRatio", {{"cpu", "2"}}}},
       {{"limits", {{"cpu", "1"}}}},
       "cpu max limit to request ratio per Container is 2, but no request is specified or "
       "request is 0."},
      {{{"type", "Pod"}, {"max", {{"cpu", "1"}}}},
       {{"requests", {{"cpu", "500m"}}}, {"limits", {{"cpu", "1500m"}}}},
       "maximum cpu usage per Pod is 1, but limit is 1500m."},
      {{{"type", "Container"}, {"max", {{"cpu", "1"}, {"memory", "1Gi"}}}},
       {{"limits", {{"cpu", "2"}, {"memory", "2Gi"}}}},
       "[maximum cpu usage per Container is 1, but limit is 2., maximum memory usage per "
       "Container is 1Gi, but limit is 2Gi.]"},
      {{{"type", "Container"}, {"max", {{"cpu", "1"}}}, {"min", {{"cpu", "100m"}}}},
       {{"requests", {{"cpu", "200m"}}}, {"limits", {{"cpu", "1"}}}},
       ""},
  };
  for (const auto& row : rows) {
    CAPTURE(row.item.dump(), row.resources.dump());
    CHECK(limit_range_violations("Pod", pod_with(row.resources), {limit_range({row.item})}) ==
          row.want);
  }
  json claim = {{"spec", {{"resources", {{"requests", {{"storage", "5Gi"}}}}}}}};
  json claims = limit_range({{{"type", "PersistentVolumeClaim"},
                              {"max", {{"storage", "2Gi"}}},
                              {"min", {{"storage", "1Gi"}}}}});
  CHECK(limit_range_violations("PersistentVolumeClaim", claim, {claims}) ==
        "maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi.");
  CHECK(limit_range_violations("ConfigMap", claim, {claims}).empty());
}

TEST_CASE("ResourceQuota: what objects count") {
  GroupResource pods{"", "pods"};
  json pod = pod_with({{"requests", {{"cpu", "250m"}, {"memory", "64Mi"}}},
                       {"limits", {{"cpu", "500m"}, {"memory", "128Mi"}}}});
  pod["spec"]["containers"].push_back(
      {{"name", "side"}, {"resources", {{"requests", {{"cpu", "250m"}}}}}});
  ResourceList u = quota_usage(pods, pod);
  CHECK(pretty(u) ==
        "count/pods=1,cpu=500m,limits.cpu=500m,limits.memory=128Mi,memory=64Mi,pods=1,"
        "requests.cpu=500m,requests.memory=64Mi");
  json done = pod;
  done["status"]["phase"] = "Succeeded";
  CHECK(pretty(quota_usage(pods, done)) == "count/pods=1");

  json svc = {{"spec", {{"type", "NodePort"}, {"ports", {{{"port", 80}}, {{"port", 443}}}}}}};
  CHECK(pretty(quota_usage({"", "services"}, svc)) ==
        "count/services=1,services=1,services.nodeports=2");
  svc["spec"]["type"] = "LoadBalancer";
  CHECK(pretty(quota_usage({"", "services"}, svc)) ==
        "count/services=1,services=1,services.loadbalancers=1,services.nodeports=2");

  json claim = {
      {"spec",
       {{"storageClassName", "fast"}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  CHECK(pretty(quota_usage({"", "persistentvolumeclaims"}, claim)) ==
        "count/persistentvolumeclaims=1,fast.storageclass.storage.k8s.io/"
        "persistentvolumeclaims=1,fast.storageclass.storage.k8s.io/requests.storage=1Gi,"
        "persistentvolumeclaims=1,requests.storage=1Gi");
  CHECK(pretty(quota_usage({"", "configmaps"}, json::object())) ==
        "configmaps=1,count/configmaps=1");
  CHECK(pretty(quota_usage({"apps", "deployments"}, json::object())) == "count/deployments.apps=1");
  CHECK(quota_charges(pods, true));
  CHECK_FALSE(quota_charges(pods, false));
  CHECK(quota_charges({"", "services"}, false));
}

TEST_CASE("ResourceQuota: checks with upstream's messages") {
  GroupResource pods{"", "pods"};
  json pod = pod_with(json::object());
  struct Row {
    json quota;
    std::string error;
    std::string used;  // after the charge
  };
  std::vector<Row> rows = {
      {quota({{"pods", "2"}}, {{"pods", "2"}}),
       "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2", ""},
      {quota({{"pods", "2"}}, {{"pods", "1"}}), "", "pods=2"},
      {quota({{"pods", "2"}, {"configmaps", "1"}}, {{"pods", "0"}, {"configmaps", "1"}}), "",
       "configmaps=1,pods=1"},
      {quota({{"limits.cpu", "2"}, {"requests.memory", "1Gi"}},
             {{"limits.cpu", "0"}, {"requests.memory", "0"}}),
       "failed quota: q: must specify limits.cpu for: web; requests.memory for: web", ""},
      {quota({{"pods", "2"}}, json::object()), "status unknown for quota: q, resources: pods", ""},
  };
  for (const auto& row : rows) {
    CAPTURE(row.quota.dump());
    REQUIRE(quota_applies(row.quota, pods, pod));
    QuotaCheck c = check_quota(row.quota, pods, pod, quota_delta(pods, pod, nullptr));
    CHECK(c.error == row.error);
    CHECK(c.charged == row.error.empty());
    if (c.charged) CHECK(pretty(c.used) == row.used);
  }
  // A quota that limits nothing pods count does not apply.
  CHECK_FALSE(quota_applies(quota({{"configmaps", "1"}}, {{"configmaps", "0"}}), pods, pod));
}

TEST_CASE("ResourceQuota: scopes select pods") {
  GroupResource pods{"", "pods"};
  json best_effort = pod_with(json::object());
  json burstable = pod_with({{"requests", {{"cpu", "100m"}}}});
  json terminating = best_effort;
  terminating["spec"]["activeDeadlineSeconds"] = 60;
  json pc = best_effort;
  pc["spec"]["priorityClassName"] = "high";
  json hard = {{"pods", "5"}};
  auto scoped = [&](json scopes) { return quota(hard, {{"pods", "0"}}, scopes); };
  CHECK(quota_applies(scoped({"BestEffort"}), pods, best_effort));
  CHECK_FALSE(quota_applies(scoped({"BestEffort"}), pods, burstable));
  CHECK(quota_applies(scoped({"NotBestEffort"}), pods, burstable));
  CHECK(quota_applies(scoped({"Terminating"}), pods, terminating));
  CHECK_FALSE(quota_applies(scoped({"Terminating"}), pods, best_effort));
  CHECK(quota_applies(scoped({"NotTerminating"}), pods, best_effort));
  CHECK(quota_applies(scoped({"PriorityClass"}), pods, pc));
  CHECK_FALSE(quota_applies(scoped({"PriorityClass"}), pods, best_effort));
  json selector = quota(hard, {{"pods", "0"}});
  selector["spec"]["scopeSelector"] = {
      {"matchExpressions",
       {{{"scopeName", "PriorityClass"}, {"operator", "In"}, {"values", {"high"}}}}}};
  CHECK(quota_applies(selector, pods, pc));
  CHECK_FALSE(quota_applies(selector, pods, best_effort));
  // Scoped quotas count pods only.
  json counts = quota({{"count/configmaps", "5"}}, {{"count/configmaps", "0"}}, {"BestEffort"});
  CHECK_FALSE(quota_applies(counts, {"", "configmaps"}, json::object()));
}

TEST_CASE("ResourceQuota: update deltas and recalculation") {
  GroupResource services{"", "services"};
  json cluster_ip = {{"spec", {{"type", "ClusterIP"}, {"ports", {{{"port", 80}}}}}}};
  json node_port = {{"spec", {{"type", "NodePort"}, {"ports", {{{"port", 80}}}}}}};
  CHECK(pretty(quota_delta(services, node_port, &cluster_ip)) == "services.nodeports=1");
  CHECK(quota_delta(services, cluster_ip, &node_port).empty());

  json q = {{"spec",
             {{"hard", {{"pods", "10"}, {"requests.cpu", "4"}, {"count/deployments.apps", "3"}}}}}};
  CHECK(quota_sources(q) == std::set<GroupResource>{{"", "pods"}, {"apps", "deployments"}});
  json running = pod_with({{"requests", {{"cpu", "1"}}}});
  json failed = running;
  failed["status"]["phase"] = "Failed";
  ResourceList used = quota_used(q, [&](const GroupResource& r) -> std::vector<json> {
    if (r.second == "pods") return {running, running, failed};
    return {json::object()};
  });
  CHECK(pretty(used) == "count/deployments.apps=1,pods=2,requests.cpu=2");
}

TEST_CASE("Priority: class names resolve to priority and preemptionPolicy") {
  std::vector<json> classes = system_priority_classes();
  classes.push_back(
      {{"metadata", {{"name", "high"}}}, {"value", 1000}, {"preemptionPolicy", "Never"}});
  json pod = pod_with(json::object());
  CHECK(admit_pod_priority(pod, classes).empty());
  CHECK(pod["spec"]["priority"] == 0);
  CHECK(pod["spec"]["preemptionPolicy"] == "PreemptLowerPriority");

  pod = pod_with(json::object());
  pod["spec"]["priorityClassName"] = "system-node-critical";
  CHECK(admit_pod_priority(pod, classes).empty());
  CHECK(pod["spec"]["priority"] == 2000001000);

  pod = pod_with(json::object());
  pod["spec"]["priorityClassName"] = "high";
  CHECK(admit_pod_priority(pod, classes).empty());
  CHECK(pod["spec"]["priority"] == 1000);
  CHECK(pod["spec"]["preemptionPolicy"] == "Never");

  pod = pod_with(json::object());
  pod["spec"]["priorityClassName"] = "missing";
  CHECK(admit_pod_priority(pod, classes) == "no PriorityClass with name missing was found");

  pod = pod_with(json::object());
  pod["spec"]["priorityClassName"] = "high";
  pod["spec"]["priority"] = 5;
  CHECK(admit_pod_priority(pod, classes) ==
        "the integer value of priority (5) must not be provided in pod spec; priority admission "
        "controller computed 1000 from the given PriorityClass name");

  classes.push_back({{"metadata", {{"name", "normal"}}}, {"value", 10}, {"globalDefault", true}});
  pod = pod_with(json::object());
  CHECK(admit_pod_priority(pod, classes).empty());
  CHECK(pod["spec"]["priorityClassName"] == "normal");
  CHECK(pod["spec"]["priority"] == 10);

  json second = {{"metadata", {{"name", "other"}}}, {"value", 5}, {"globalDefault", true}};
  CHECK(check_priority_class(second, classes) ==
        "PriorityClass normal is already marked as default. Only one default can exist");
  CHECK(check_priority_class(classes.back(), classes).empty());

  json updated = pod_with(json::object());
  keep_pod_priority(updated, pod);
  CHECK(updated["spec"]["priority"] == 10);
}

TEST_CASE("DefaultTolerationSeconds adds what the pod does not tolerate") {
  json pod = pod_with(json::object());
  default_toleration_seconds(pod);
  CHECK(pod["spec"]["tolerations"] ==
        json::parse(R"([{"key":"node.kubernetes.io/not-ready","operator":"Exists",
          "effect":"NoExecute","tolerationSeconds":300},
          {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute",
          "tolerationSeconds":300}])"));
  json own = pod_with(json::object());
  own["spec"]["tolerations"] = {{{"key", "node.kubernetes.io/unreachable"},
                                 {"operator", "Exists"},
                                 {"effect", "NoExecute"},
                                 {"tolerationSeconds", 10}}};
  default_toleration_seconds(own);
  REQUIRE(own["spec"]["tolerations"].size() == 2);
  CHECK(own["spec"]["tolerations"][0]["tolerationSeconds"] == 10);
  CHECK(own["spec"]["tolerations"][1]["key"] == "node.kubernetes.io/not-ready");
  json all = pod_with(json::object());
  all["spec"]["tolerations"] = {{{"operator", "Exists"}}};
  default_toleration_seconds(all);
  CHECK(all["spec"]["tolerations"].size() == 1);
}

TEST_CASE("DefaultStorageClass: the newest default class") {
  auto sc = [](std::string name, std::string created, bool is_default) {
    json c = {{"metadata", {{"name", name}, {"creationTimestamp", created}}}};
    if (is_default)
      c["metadata"]["annotations"] = {{"storageclass.kubernetes.io/is-default-class", "true"}};
    return c;
  };
  std::vector<json> classes = {sc("old", "2026-01-01T00:00:00Z", true),
                               sc("new", "2026-02-01T00:00:00Z", true),
                               sc("plain", "2026-03-01T00:00:00Z", false)};
  json claim = {{"spec", json::object()}};
  default_storage_class(claim, classes);
  CHECK(claim["spec"]["storageClassName"] == "new");
  json named = {{"spec", {{"storageClassName", ""}}}};
  default_storage_class(named, classes);
  CHECK(named["spec"]["storageClassName"] == "");
  json none = {{"spec", json::object()}};
  default_storage_class(none, {classes[2]});
  CHECK_FALSE(none["spec"].contains("storageClassName"));
}

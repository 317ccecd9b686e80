#include "api/field_manager.h"

#include <catch2/catch.hpp>
#include <chrono>

namespace k3c::api {
namespace {

using nlohmann::json;

const MessageType* fm_deployment() {
  static const SchemaSet set = SchemaSet::builtin().value();
  return set.kind({"apps", "v1", "Deployment"});
}

Writer writer(const std::string& manager, const std::string& time = "2026-11-29T10:00:00Z") {
  return {manager, "apps/v1", "", time};
}

json config(const std::string& image, int replicas, bool with_env) {
  json c = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","labels":{"app":"web"}},
    "spec":{"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"web","ports":[{"containerPort":80}]}]}}}})");
  c["spec"]["replicas"] = replicas;
  c["spec"]["template"]["spec"]["containers"][0]["image"] = image;
  if (with_env) c["spec"]["template"]["spec"]["containers"][0]["env"] = {{{"name", "A"}}};
  return c;
}

const json& entries(const json& object) { return object["metadata"]["managedFields"]; }

TEST_CASE("field sets: FieldsV1 round trip and path strings") {
  json v1 = json::parse(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},
    "f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{}}}}})");
  auto set = fieldset_from_v1(v1);
  REQUIRE(set.is_ok());
  REQUIRE(set->size() == 4);
  REQUIRE(fieldset_to_v1(*set) == v1);
  // The same reads without the set.
  CHECK(fields_v1_readable(v1));
  for (const FieldPath& p : *set) CHECK(fields_v1_holds(v1, p));
  CHECK_FALSE(fields_v1_holds(v1, {"f:metadata"}));  // a node without "." is not a member
  CHECK_FALSE(fields_v1_holds(v1, {"f:spec", "f:replicas"}));
  CHECK_FALSE(fields_v1_holds(v1, {}));
  CHECK_FALSE(fields_v1_readable(json::parse(R"({"f:a":{"x":{}}})")));
  CHECK_FALSE(fields_v1_readable(json::parse(R"({"f:a":1})")));
  CHECK_FALSE(fieldset_from_v1(json::parse(R"({"f:a":{"x":{}}})")).is_ok());
  REQUIRE(path_string({"f:spec", "f:containers", "k:{\"name\":\"web\"}", "f:image"}) ==
          ".spec.containers[name=\"web\"].image");
  REQUIRE(path_string({"f:ports", "k:{\"containerPort\":80,\"protocol\":\"TCP\"}"}) ==
          ".ports[containerPort=80,protocol=\"TCP\"]");
  REQUIRE(path_string({"f:finalizers", "v:\"x\""}) == ".finalizers[=\"x\"]");
  REQUIRE_FALSE(fieldset_from_v1(json::parse(R"({"x:1":{}})")).is_ok());
}

TEST_CASE("fields of a configuration: leaves and keyed items (key defaults filled in)") {
  auto set = fields_of(config("nginx:1", 2, false), fm_deployment());
  REQUIRE(set.is_ok());
  const FieldPath item = {"f:spec", "f:template", "f:spec", "f:containers", "k:{\"name\":\"web\"}"};
  REQUIRE(set->count(item));
  FieldPath image = item;
  image.push_back("f:image");
  REQUIRE(set->count(image));
  FieldPath port = item;
  port.push_back("f:ports");
  port.push_back("k:{\"containerPort\":80,\"protocol\":\"TCP\"}");
  REQUIRE(set->count(port));
  REQUIRE_FALSE(set->count({"f:spec"}));  // structs with fields are not members
}

TEST_CASE("field paths: steps, order as lists of steps, prefixes, escaped bytes") {
  FieldPath p = {"f:spec", "f:containers"};
  p.push_back("k:", R"({"name":"a"})");
  CHECK(p.steps() == std::vector<std::string>{"f:spec", "f:containers", R"(k:{"name":"a"})"});
  CHECK(p.starts_with(FieldPath{"f:spec"}));
  CHECK_FALSE(p.starts_with(FieldPath{"f:sp"}));  // a prefix of steps, not of text
  p.pop_back();
  CHECK(p == FieldPath{"f:spec", "f:containers"});
  // Ordered as the lists of steps are: a step before its extensions, a prefix first.
  CHECK(FieldPath{"f:a"} < FieldPath{"f:a", "f:b"});
  CHECK(FieldPath{"f:a", "f:b"} < FieldPath{"f:ab"});
  // Steps with 0 and 1 bytes (a map key from a client) round-trip and keep the order.
  const std::string zero("f:x\0y", 5), one("f:x\1y", 5);
  FieldPath z = {zero}, o = {one};
  CHECK(z.steps() == std::vector<std::string>{zero});
  CHECK(o.steps() == std::vector<std::string>{one});
  CHECK(FieldPath{"f:x"} < z);
  CHECK(z < o);
  CHECK(o < FieldPath{"f:x\2"});
  // An empty step pops as any other; popping an empty path leaves it empty.
  FieldPath e = {""};
  e.pop_back();
  CHECK(e.empty());
  e.pop_back();
  CHECK(e.empty());
}

TEST_CASE("apply: create, re-apply, drop a field, conflicts, force") {
  auto first = apply_configuration(json(), config("nginx:1", 2, true), fm_deployment(),
                                   writer("alice"), false);
  REQUIRE(first.is_ok());
  json live = first->object;
  REQUIRE(entries(live).size() == 1);
  REQUIRE(entries(live)[0]["manager"] == "alice");
  REQUIRE(entries(live)[0]["operation"] == "Apply");
  REQUIRE(entries(live)[0]["fieldsType"] == "FieldsV1");
  REQUIRE(entries(live)[0]["fieldsV1"]["f:spec"].contains("f:replicas"));

  // alice drops env: it goes (no one else owns it); the image changes.
  auto second = apply_configuration(live, config("nginx:2", 2, false), fm_deployment(),
                                    writer("alice", "2026-11-29T11:00:00Z"), false);
  REQUIRE(second.is_ok());
  REQUIRE(second->conflicts.empty());
  live = second->object;
  const json& c = live["spec"]["template"]["spec"]["containers"][0];
  REQUIRE(c["image"] == "nginx:2");
  REQUIRE_FALSE(c.contains("env"));
  REQUIRE(entries(live)[0]["time"] == "2026-11-29T11:00:00Z");

  // bob changes replicas: conflict with alice, unless forced.
  json bob = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web"},"spec":{"replicas":5}})");
  auto refused = apply_configuration(live, bob, fm_deployment(), writer("bob"), false);
  REQUIRE(refused.is_ok());
  REQUIRE(refused->conflicts.size() == 1);
  REQUIRE(conflict_message(refused->conflicts) ==
          "Apply failed with 1 conflict: conflict with \"alice\": .spec.replicas");
  auto forced = apply_configuration(live, bob, fm_deployment(), writer("bob"), true);
  REQUIRE(forced.is_ok());
  REQUIRE(forced->object["spec"]["replicas"] == 5);
  live = forced->object;
  REQUIRE(entries(live).size() == 2);
  for (const json& e : entries(live)) {
    bool owns = e["fieldsV1"]["f:spec"].contains("f:replicas");
    REQUIRE(owns == (e["manager"] == "bob"));
  }
  // Same value: shared ownership, no conflict.
  auto same = apply_configuration(live, config("nginx:2", 5, false), fm_deployment(),
                                  writer("alice"), false);
  REQUIRE(same.is_ok());
  REQUIRE(same->conflicts.empty());
  // A field alice drops but bob owns stays.
  json no_replicas = config("nginx:2", 5, false);
  no_replicas["spec"].erase("replicas");
  auto dropped =
      apply_configuration(same->object, no_replicas, fm_deployment(), writer("alice"), false);
  REQUIRE(dropped.is_ok());
  REQUIRE(dropped->object["spec"]["replicas"] == 5);
  // A node marked as a member before (a migrated client-side entry) is not dropped while
  // fields below it are still applied.
  json marked = dropped->object;
  for (json& e : marked["metadata"]["managedFields"]) {
    if (e["manager"] == "alice") e["fieldsV1"]["f:metadata"]["f:labels"]["."] = json::object();
  }
  auto kept = apply_configuration(marked, no_replicas, fm_deployment(), writer("alice"), false);
  REQUIRE(kept.is_ok());
  REQUIRE(kept->object["metadata"]["labels"] == json({{"app", "web"}}));
  REQUIRE(apply_configuration(live, json::parse(R"({"metadata":{"managedFields":[]}})"),
                              fm_deployment(), writer("x"), false)
              .status()
              .message() == "metadata.managedFields must be nil");
}

TEST_CASE("updates take over the fields they change; conflicts name Update managers") {
  auto applied = apply_configuration(json(), config("nginx:1", 2, false), fm_deployment(),
                                     writer("alice"), false);
  REQUIRE(applied.is_ok());
  json live = applied->object;
  json edited = live;
  edited["spec"]["replicas"] = 3;
  edited["metadata"]["labels"]["tier"] = "front";
  auto fields = managed_fields_after_update(live, edited, fm_deployment(), writer("kubectl-edit"));
  REQUIRE(fields.is_ok());
  edited["metadata"]["managedFields"] = *fields;
  REQUIRE(fields->size() == 2);
  const json& update = (*fields)[1];
  REQUIRE(update["operation"] == "Update");
  REQUIRE(update["apiVersion"] == "apps/v1");
  REQUIRE(update["fieldsV1"] == json::parse(R"({"f:metadata":{"f:labels":{"f:tier":{}}},
      "f:spec":{"f:replicas":{}}})"));
  REQUIRE_FALSE((*fields)[0]["fieldsV1"]["f:spec"].contains("f:replicas"));

  // alice re-applies replicas 2: it is kubectl-edit's now.
  auto again = apply_configuration(edited, config("nginx:1", 2, false), fm_deployment(),
                                   writer("alice"), false);
  REQUIRE(again.is_ok());
  REQUIRE(conflict_message(again->conflicts) ==
          "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using apps/v1: "
          ".spec.replicas");
  json two = config("nginx:9", 4, false);
  edited["spec"]["template"]["spec"]["containers"][0]["image"] = "x";
  edited["metadata"].erase("managedFields");
  auto more = managed_fields_after_update(applied->object, edited, fm_deployment(), writer("ed"));
  REQUIRE(more.is_ok());
  edited["metadata"]["managedFields"] = *more;
  auto both = apply_configuration(edited, two, fm_deployment(), writer("alice"), false);
  REQUIRE(both.is_ok());
  REQUIRE(conflict_message(both->conflicts) ==
          "Apply failed with 2 conflicts: conflicts with \"ed\" using apps/v1:\n"
          "- .spec.replicas\n"
          "- .spec.template.spec.containers[name=\"web\"].image");
}

TEST_CASE("at most 10 Update entries: the oldest merge into ancient-changes") {
  json object = config("nginx:1", 1, false);
  for (int i = 0; i < 12; ++i) {
    json next = object;
    next["metadata"]["labels"]["l" + std::to_string(i)] = "x";
    std::string time =
        "2026-11-29T10:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "Z";
    auto fields = managed_fields_after_update(object, next, fm_deployment(),
                                              writer("m" + std::to_string(i), time));
    REQUIRE(fields.is_ok());
    next["metadata"]["managedFields"] = *fields;
    object = next;
  }
  const json& list = entries(object);
  REQUIRE(list.size() == 10);
  REQUIRE(list[0]["manager"] == "ancient-changes");
  REQUIRE(list[0]["fieldsV1"]["f:metadata"]["f:labels"].size() == 3);  // l0, l1, l2 (+ app)
  REQUIRE(list[9]["manager"] == "m11");
}

TEST_CASE("kubectl may take over fields its last client-side apply set") {
  json live = config("nginx:1", 2, false);
  live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
      config("nginx:1", 2, false).dump();
  auto fields = managed_fields_after_update(json(), live, fm_deployment(),
                                            writer("kubectl-client-side-apply"));
  REQUIRE(fields.is_ok());
  live["metadata"]["managedFields"] = *fields;
  auto applied = apply_configuration(live, config("nginx:2", 2, false), fm_deployment(),
                                     writer("kubectl"), false);
  REQUIRE(applied.is_ok());
  REQUIRE(applied->conflicts.empty());
  REQUIRE(applied->object["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2");
  // Another manager gets no such pass; nor does kubectl for a field changed since.
  REQUIRE(apply_configuration(live, config("nginx:2", 2, false), fm_deployment(), writer("other"),
                              false)
              ->conflicts.size() == 1);
  live["spec"]["replicas"] = 7;
  REQUIRE(apply_configuration(live, config("nginx:1", 2, false), fm_deployment(), writer("kubectl"),
                              false)
              ->conflicts.size() == 1);
}

TEST_CASE("an update's managed fields: a status change of a deployment", "[.bench]") {
  json live = config("nginx:1", 2, true);
  for (int i = 0; i < 20; ++i) live["metadata"]["labels"]["l" + std::to_string(i)] = "v";
  auto created = managed_fields_after_update(json(), live, fm_deployment(), writer("kubectl"));
  REQUIRE(created.is_ok());
  live["metadata"]["managedFields"] = *created;
  json updated = live;
  updated["status"] = {{"replicas", 2}, {"readyReplicas", 1}};
  Writer status_writer{"kube-controller-manager", "apps/v1", "status", "2026-11-29T10:00:00Z"};
  const int n = 5000;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i)
    REQUIRE(managed_fields_after_update(live, updated, fm_deployment(), status_writer).is_ok());
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
      n;
  WARN("managed_fields_after_update, status change: " << us << " us");
}

}  // namespace
// A pod of a ReplicaSet as stored while pending, and the same pod once its kubelet reported
// it running (through the status subresource).
const json& pending_pod() {
  static const json pod = json::parse(
      R"json({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-12-05T05:43:25Z","generateName":"web-6c8d9878b5-","labels":{"app":"web","pod-template-hash":"6c8d9878b5"},"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"9644475a-39e5-44b4-adc6-f58de2bfc81e\"}":{".":{},"f:apiVersion":{},"f:blockOwnerDeletion":{},"f:controller":{},"f:kind":{},"f:name":{},"f:uid":{}}}},"f:spec":{"f:containers":{".":{},"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:preemptionPolicy":{},"f:priority":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{},"f:volumes":{".":{},"k:{\"name\":\"kube-api-access-srj4d\"}":{".":{},"f:name":{},"f:projected":{"f:defaultMode":{},"f:sources":{}}}}}},"manager":"k3c-in-process","operation":"Update","time":"2026-12-05T05:43:25Z"}],"name":"web-6c8d9878b5-24kpt","namespace":"web","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web-6c8d9878b5","uid":"9644475a-39e5-44b4-adc6-f58de2bfc81e"}],"resourceVersion":"6597","uid":"f75caf73-a4cb-4db6-a952-6c6f0901adfe"},"spec":{"containers":[{"image":"registry.example/bench:1","imagePullPolicy":"IfNotPresent","name":"app","resources":{"requests":{"cpu":"10m","memory":"16Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-srj4d","readOnly":true}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"nodeName":"hollow-181","preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":0,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"name":"kube-api-access-srj4d","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}}]},"status":{"phase":"Pending","qosClass":"Burstable","conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-12-05T05:43:25Z","status":"True","type":"PodScheduled"}]}})json");
  return pod;
}
const json& running_pod() {
  static const json pod = json::parse(
      R"json({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-12-05T05:43:25Z","generateName":"web-6c8d9878b5-","labels":{"app":"web","pod-template-hash":"6c8d9878b5"},"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"9644475a-39e5-44b4-adc6-f58de2bfc81e\"}":{".":{},"f:apiVersion":{},"f:blockOwnerDeletion":{},"f:controller":{},"f:kind":{},"f:name":{},"f:uid":{}}}},"f:spec":{"f:containers":{".":{},"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:preemptionPolicy":{},"f:priority":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{},"f:volumes":{".":{},"k:{\"name\":\"kube-api-access-srj4d\"}":{".":{},"f:name":{},"f:projected":{"f:defaultMode":{},"f:sources":{}}}}}},"manager":"k3c-in-process","operation":"Update","time":"2026-12-05T05:43:25Z"}],"name":"web-6c8d9878b5-24kpt","namespace":"web","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web-6c8d9878b5","uid":"9644475a-39e5-44b4-adc6-f58de2bfc81e"}],"resourceVersion":"6597","uid":"f75caf73-a4cb-4db6-a952-6c6f0901adfe"},"spec":{"containers":[{"image":"registry.example/bench:1","imagePullPolicy":"IfNotPresent","name":"app","resources":{"requests":{"cpu":"10m","memory":"16Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-srj4d","readOnly":true}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"nodeName":"hollow-181","preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":0,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"name":"kube-api-access-srj4d","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}}]},"status":{"conditions":[{"lastProbeTime":null,"lastTransitionTime":"2026-12-05T05:43:26Z","status":"True","type":"PodReadyToStartContainers"},{"lastProbeTime":null,"lastTransitionTime":"2026-12-05T05:43:26Z","status":"True","type":"Initialized"},{"lastProbeTime":null,"lastTransitionTime":"2026-12-05T05:43:26Z","status":"True","type":"Ready"},{"lastProbeTime":null,"lastTransitionTime":"2026-12-05T05:43:26Z","status":"True","type":"ContainersReady"},{"lastProbeTime":null,"lastTransitionTime":"2026-12-05T05:43:25Z","status":"True","type":"PodScheduled"}],"containerStatuses":[{"containerID":"k3c://dbaa0bc051d1e837f33239b1f31a325a7f8d1b0f932dca75cb631adfde1d0938","image":"registry.example/bench:1","imageID":"sha256:94b405571be7b6240ca556def4ff2399e0f9d0ebf17c21f604215b733d2a423b","lastState":{},"name":"app","ready":true,"restartCount":0,"started":true,"state":{"running":{"startedAt":"2026-12-05T05:43:26Z"}}}],"hostIP":"172.16.0.182","hostIPs":[{"ip":"172.16.0.182"}],"phase":"Running","podIP":"10.96.166.8","podIPs":[{"ip":"10.96.166.8"}],"qosClass":"Burstable","startTime":"2026-12-05T05:43:26Z"}})json");
  return pod;
}

const MessageType* fm_pod() {
  static const SchemaSet set = SchemaSet::builtin().value();
  return set.kind({"", "v1", "Pod"});
}

TEST_CASE("a status write takes its fields and leaves the other entries as stored") {
  Writer kubelet{"k3c", "v1", "status", "2026-12-05T05:43:26Z"};
  auto fields = managed_fields_after_update(pending_pod(), running_pod(), fm_pod(), kubelet);
  REQUIRE(fields.is_ok());
  REQUIRE(fields->size() == 2);
  // The controller's entry is the stored one, as it was.
  CHECK((*fields)[0] == entries(pending_pod())[0]);
  const json& mine = (*fields)[1];
  CHECK(mine["manager"] == "k3c");
  CHECK(mine["subresource"] == "status");
  CHECK(mine["fieldsV1"]["f:status"].contains("f:podIP"));
  CHECK(mine["fieldsV1"]["f:status"]["f:conditions"].contains(R"(k:{"type":"Ready"})"));
  CHECK_FALSE(mine["fieldsV1"].contains("f:spec"));
}

TEST_CASE("managedFields of a pod's status write: time per write", "[.bench]") {
  Writer kubelet{"k3c", "v1", "status", "2026-12-05T05:43:26Z"};
  for (int round = 0; round < 5; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    constexpr int kWrites = 2000;
    for (int i = 0; i < kWrites; ++i) {
      auto fields = managed_fields_after_update(pending_pod(), running_pod(), fm_pod(), kubelet);
      REQUIRE(fields.is_ok());
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    WARN("managed_fields_after_update, status write of a running pod: " << us / kWrites << " us");
  }
  // A create: every field of the object is the writer's.
  Writer controller{"k3c-controller-manager", "v1", "", "2026-12-05T05:43:25Z"};
  json pending = pending_pod();
  pending["metadata"].erase("managedFields");
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    constexpr int kCreates = 2000;
    for (int i = 0; i < kCreates; ++i) {
      REQUIRE(managed_fields_after_update(json(), pending, fm_pod(), controller).is_ok());
    }
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    WARN("managed_fields_after_update, create of a pod: " << us / kCreates << " us");
  }
}

}  // namespace k3c::api

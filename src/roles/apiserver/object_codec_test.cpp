// Stored object -> cache entry: the scan that decode_stored uses gives what a parse and a dump
// give (parse_stored), for objects as our encoder writes them and for the odd ones it falls
// back on.
#include "roles/apiserver/object_codec.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <random>

namespace k3c::apiserver {
namespace {

using nlohmann::json;

void require_same(const std::string& value, int64_t revision = 42) {
  store::KeyValue kv{"/registry/x/default/a", value, 1, revision, 0};
  auto scanned = decode_stored(kv);
  auto parsed = parse_stored(kv);
  INFO(value);
  REQUIRE(scanned.is_ok() == parsed.is_ok());
  if (!parsed.is_ok()) {
    REQUIRE(scanned.status().message() == parsed.status().message());
    return;
  }
  CHECK(scanned->json.text() == parsed->json.text());
  CHECK(scanned->key == parsed->key);
  CHECK(scanned->revision == parsed->revision);
  CHECK(scanned->name == parsed->name);
  CHECK(scanned->namespace_ == parsed->namespace_);
  CHECK(scanned->uid == parsed->uid);
  CHECK(scanned->labels == parsed->labels);
  CHECK(scanned->fields == parsed->fields);
  // The answer to a write takes the same bytes by the same scan (when there is a metadata
  // object to put the resourceVersion in; else the writer serializes the object).
  if (auto answer = with_resource_version(value, revision)) CHECK(*answer == parsed->json.text());
}

json pod() {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", "web-1"},
            {"namespace", "default"},
            {"uid", "5f6e7d8c"},
            {"creationTimestamp", "2026-12-04T20:00:00Z"},
            {"labels", {{"app", "web"}, {"tier", "front"}}},
            {"managedFields",
             json::array({{{"manager", "kubectl"}, {"fieldsV1", {{"f:spec", json::object()}}}}})}}},
          {"spec",
           {{"nodeName", "n1"},
            {"restartPolicy", "Always"},
            {"hostNetwork", true},
            {"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}},
          {"status", {{"phase", "Running"}, {"podIP", "10.42.0.5"}}}};
}

TEST_CASE("the stored-object scan gives the parse's JSON bytes and fields") {
  json p = pod();
  require_same(p.dump());
  // resourceVersion's place among metadata's sorted keys: first, between, last, alone, and a
  // stored one replaced.
  json first = p;
  first["metadata"] = {{"uid", "u"}, {"selfLink", "/x"}};
  require_same(first.dump());
  json last = p;
  last["metadata"] = {{"name", "a"}, {"annotations", {{"k", "v"}}}};
  require_same(last.dump());
  json empty = p;
  empty["metadata"] = json::object();
  require_same(empty.dump());
  json stored_rv = p;
  stored_rv["metadata"]["resourceVersion"] = "7";
  require_same(stored_rv.dump());
  // Objects without metadata, apiVersion or kind, or with odd member types.
  json bare = {{"spec", {{"nodeName", "n"}}}};
  require_same(bare.dump());
  require_same(json{{"metadata", nullptr}}.dump());
  require_same(json{{"metadata", "x"}}.dump());
  require_same(json{{"kind", 5}, {"metadata", {{"name", "a"}}}}.dump());
  json odd = p;
  odd["metadata"]["name"] = 5;
  require_same(odd.dump());
  odd = p;
  odd["metadata"]["labels"] = {{"a", 1}, {"b", "x"}, {"c", nullptr}};
  require_same(odd.dump());
  odd["metadata"]["labels"] = "not a map";
  require_same(odd.dump());
  // Selectable fields of every form: escaped strings, numbers, booleans, null, objects.
  json fields = p;
  fields["spec"]["nodeName"] = "n\"1\\\u00e9";
  fields["spec"]["schedulerName"] = nullptr;
  fields["spec"]["serviceAccountName"] = {{"a", 1}};
  fields["status"]["phase"] = 12345;
  fields["status"]["podIP"] = -3.5;
  fields["status"]["nominatedNodeName"] = json::array({1, "x"});
  require_same(fields.dump());
  fields["spec"] = "not an object";
  fields["status"] = nullptr;
  require_same(fields.dump());
  // Escaped metadata strings and keys.
  json escaped = p;
  escaped["metadata"]["name"] = "a\tb";
  require_same(escaped.dump());
  escaped = p;
  escaped["metadata"]["lab\"els"] = "x";
  require_same(escaped.dump());
  // Events: the core names, the events.k8s.io names, source.component.
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "p.1"}, {"namespace", "default"}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"uid", "u1"}}},
                {"reason", "Scheduled"},
                {"reportingComponent", "default-scheduler"},
                {"source", {{"component", "default-scheduler"}, {"host", "h"}}},
                {"type", "Normal"},
                {"count", 3}};
  require_same(event.dump());
  require_same(json{{"apiVersion", "v1"},
                    {"kind", "Node"},
                    {"metadata", {{"name", "n1"}}},
                    {"spec", {{"unschedulable", true}}}}
                   .dump());
  // Not JSON objects, broken or trailing text: the parse's errors.
  for (const char* bad : {"", "[]", "{", "{\"metadata\":{}", "{\"a\":1} x", "{\"metadata\":{}}}",
                          "{\"metadata\":{\"name\":\"a\",}}", "nul", "{\"a\":tru}"}) {
    require_same(bad);
  }
}

// As k3c stored them (a Deployment's pod with its managedFields, and an Event).
constexpr const char* kStoredPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-12-04T20:57:31Z","generateName":"web-bbfb67bc8-","labels":{"app":"web","pod-template-hash":"bbfb67bc8"},"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"b7e7798b-4226-4a7f-a64f-97f3f63eb036\"}":{".":{},"f:apiVersion":{},"f:blockOwnerDeletion":{},"f:controller":{},"f:kind":{},"f:name":{},"f:uid":{}}}},"f:spec":{"f:containers":{".":{},"k:{\"name\":\"busybox\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:preemptionPolicy":{},"f:priority":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{},"f:volumes":{".":{},"k:{\"name\":\"kube-api-access-7xvcq\"}":{".":{},"f:name":{},"f:projected":{"f:defaultMode":{},"f:sources":{}}}}}},"manager":"k3c-in-process","operation":"Update","time":"2026-12-04T20:57:31Z"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}},"manager":"k3c-in-process","operation":"Update","subresource":"status","time":"2026-12-04T20:57:31Z"}],"name":"web-bbfb67bc8-6t9gt","namespace":"default","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web-bbfb67bc8","uid":"b7e7798b-4226-4a7f-a64f-97f3f63eb036"}],"uid":"08c7a83f-35b1-44f3-bf33-1aee1c19b963"},"spec":{"containers":[{"image":"busybox","imagePullPolicy":"Always","name":"busybox","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-7xvcq","readOnly":true}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":30,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"name":"kube-api-access-7xvcq","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}}]},"status":{"conditions":[{"lastTransitionTime":"2026-12-04T20:57:31Z","message":"no nodes available to schedule pods","reason":"Unschedulable","status":"False","type":"PodScheduled"}],"phase":"Pending","qosClass":"BestEffort"}})";
constexpr const char* kStoredEvent =
    R"({"apiVersion":"v1","count":1,"firstTimestamp":"2026-12-04T20:57:31Z","involvedObject":{"apiVersion":"v1","kind":"Pod","name":"web-bbfb67bc8-6t9gt","namespace":"default","resourceVersion":"30","uid":"08c7a83f-35b1-44f3-bf33-1aee1c19b963"},"kind":"Event","lastTimestamp":"2026-12-04T20:57:31Z","message":"no nodes available to schedule pods","metadata":{"creationTimestamp":"2026-12-04T20:57:31Z","managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:count":{},"f:firstTimestamp":{},"f:involvedObject":{"f:apiVersion":{},"f:kind":{},"f:name":{},"f:namespace":{},"f:resourceVersion":{},"f:uid":{}},"f:lastTimestamp":{},"f:message":{},"f:reason":{},"f:reportingComponent":{},"f:reportingInstance":{},"f:source":{"f:component":{}},"f:type":{}},"manager":"k3c-in-process","operation":"Update","time":"2026-12-04T20:57:31Z"}],"name":"web-bbfb67bc8-6t9gt.18ee288499ecb623","namespace":"default","uid":"6d61990a-516e-41e5-8b6c-9603927593d1"},"reason":"FailedScheduling","reportingComponent":"default-scheduler","reportingInstance":"","source":{"component":"default-scheduler"},"type":"Warning"})";

TEST_CASE("the stored-object scan matches the parse on objects k3c stored") {
  require_same(kStoredPod);
  require_same(kStoredEvent);
  CHECK(with_resource_version(kStoredPod, 42));
  CHECK(with_resource_version(kStoredEvent, 42));
  CHECK(with_resource_version(pod().dump(), 42));
  CHECK_FALSE(with_resource_version("{\"a\":1}", 42));  // no metadata: the writer dumps
}

TEST_CASE("the stored-object scan matches the parse on random objects") {
  std::mt19937 rng(7);
  const char* keys[] = {"annotations", "creationTimestamp", "labels",   "name",
                        "namespace",   "resourceVersion",   "selfLink", "uid",
                        "generation",  "finalizers",        "a",        "zz"};
  for (int i = 0; i < 500; ++i) {
    json p = pod();
    json meta = json::object();
    for (const char* k : keys) {
      if (rng() % 2) continue;
      std::string v = "v" + std::to_string(rng() % 100);
      if (std::string_view(k) == "labels") {
        meta[k] = {{"app", v}};
      } else if (std::string_view(k) == "generation") {
        meta[k] = static_cast<int>(rng() % 10);
      } else {
        meta[k] = v;
      }
    }
    p["metadata"] = meta;
    if (rng() % 3 == 0) p["status"].erase("phase");
    if (rng() % 3 == 0) p.erase("spec");
    require_same(p.dump(), static_cast<int64_t>(rng() % 100000));
  }
}

TEST_CASE("decoding a stored pod: scan against parse", "[.bench]") {
  store::KeyValue kv{"/registry/pods/default/web-1", kStoredPod, 1, 42, 0};
  auto time = [&](auto decode) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 20000; ++i) REQUIRE(decode(kv).is_ok());
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
               .count() /
           20000;
  };
  double scan = time(decode_stored), parse = time(parse_stored);

  WARN("decode of a " << kv.value.size() << "-byte pod: scan " << scan << " us, parse " << parse
                      << " us, ratio " << scan / parse);
}

}  // namespace
}  // namespace k3c::apiserver

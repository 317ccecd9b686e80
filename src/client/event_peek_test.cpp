// The watch event scan: type and metadata.resourceVersion found where a parse would find
// them, and nothing where it is not sure.
#include "client/event_peek.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

namespace k3c::client {
namespace {

using nlohmann::json;

TEST_CASE("peek_event reads the type and the object's resourceVersion") {
  auto peek = peek_event(
      R"({"type":"MODIFIED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","resourceVersion":"42","uid":"u"},"spec":{}}})");
  REQUIRE(peek);
  CHECK(peek->type == "MODIFIED");
  CHECK(peek->resource_version == "42");

  // As nlohmann writes it (sorted keys, whitespace allowed): an Event's involvedObject comes
  // before its metadata and carries a resourceVersion of its own; labels may be named so too.
  json object = {{"involvedObject", {{"kind", "Pod"}, {"resourceVersion", "7"}}},
                 {"metadata",
                  {{"annotations", {{"x", "{\"resourceVersion\":\"9\"} [\\"}}},
                   {"labels", {{"resourceVersion", "8"}}},
                   {"finalizers", json::array({"a", "b"})},
                   {"generation", 3},
                   {"deletionTimestamp", nullptr},
                   {"resourceVersion", "100"}}}};
  for (int indent : {-1, 2}) {
    // The event's members in the order servers write them (nlohmann would sort them).
    std::string line = R"({"type": "ADDED", "object": )" + object.dump(indent) + "}";
    peek = peek_event(line);
    REQUIRE(peek);
    CHECK(peek->type == "ADDED");
    CHECK(peek->resource_version == "100");
  }
}

TEST_CASE("peek_event gives up where only a parse can tell") {
  // No resourceVersion (an ERROR's Status), escapes in the value, the object before the type,
  // truncated or malformed lines, not an object at all.
  for (const char* line : {
           R"({"type":"ERROR","object":{"kind":"Status","metadata":{},"code":410}})",
           R"({"type":"ADDED","object":{"metadata":{"resourceVersion":"4\u0032"}}})",
           R"({"type":"ADD\"ED","object":{"metadata":{"resourceVersion":"42"}}})",
           R"({"object":{"metadata":{"resourceVersion":"42"}},"type":"ADDED"})",
           R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":)",
           R"({"type":"ADDED","object":{"spec":"unterminated}})",
           R"({"type":"ADDED","object":{"metadata":{"resourceVersion":42}}})",
           R"(["type","ADDED"])",
           "",
       }) {
    INFO(line);
    CHECK_FALSE(peek_event(line));
  }
}

TEST_CASE("without_managed_fields cuts the member out of the event's object metadata") {
  json managed =
      json::array({{{"manager", "kubectl"},
                    {"fieldsV1", {{"f:metadata", {{"k:{\"uid\":\"u\"}", json::object()}}}}}}});
  auto check = [&](json metadata) {
    json event = {
        {"type", "MODIFIED"},
        {"object", {{"apiVersion", "v1"}, {"metadata", metadata}, {"spec", {{"a", "]"}}}}}};
    for (int indent : {-1, 2}) {
      auto cut = without_managed_fields(event.dump(indent));
      REQUIRE(cut);
      json expected = event;
      expected["object"]["metadata"].erase("managedFields");
      CHECK(json::parse(*cut) == expected);
    }
  };
  check({{"managedFields", managed}});                                             // alone
  check({{"managedFields", managed}, {"name", "a"}});                              // first (sorted)
  check({{"annotations", {{"managedFields", "x"}}}, {"managedFields", managed}});  // last
  check({{"labels", {{"a", "b"}}}, {"managedFields", managed}, {"name", "a"}});    // between
  // Nothing to cut, or not sure: nullopt, and the caller parses the line as it is.
  CHECK_FALSE(without_managed_fields(R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"));
  CHECK_FALSE(without_managed_fields(R"({"type":"ADDED","object":{"spec":{"managedFields":1}}})"));
  CHECK_FALSE(without_managed_fields(R"({"type":"ADDED","object":{"metadata":{"managedFields":[)"));
  CHECK_FALSE(without_managed_fields("not json"));
}

TEST_CASE("an informer's parse of a pod event, with and without managedFields cut first",
          "[.bench]") {
  // A Deployment's pod as k3c stored it.
  const std::string line =
      std::string(R"({"type":"MODIFIED","object":)") +
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-12-04T20:57:31Z","generateName":"web-bbfb67bc8-","labels":{"app":"web","pod-template-hash":"bbfb67bc8"},"managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"b7e7798b-4226-4a7f-a64f-97f3f63eb036\"}":{".":{},"f:apiVersion":{},"f:blockOwnerDeletion":{},"f:controller":{},"f:kind":{},"f:name":{},"f:uid":{}}}},"f:spec":{"f:containers":{".":{},"k:{\"name\":\"busybox\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:preemptionPolicy":{},"f:priority":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccount":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{},"f:volumes":{".":{},"k:{\"name\":\"kube-api-access-7xvcq\"}":{".":{},"f:name":{},"f:projected":{"f:defaultMode":{},"f:sources":{}}}}}},"manager":"k3c-in-process","operation":"Update","time":"2026-12-04T20:57:31Z"},{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{".":{},"k:{\"type\":\"PodScheduled\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}},"manager":"k3c-in-process","operation":"Update","subresource":"status","time":"2026-12-04T20:57:31Z"}],"name":"web-bbfb67bc8-6t9gt","namespace":"default","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web-bbfb67bc8","uid":"b7e7798b-4226-4a7f-a64f-97f3f63eb036"}],"uid":"08c7a83f-35b1-44f3-bf33-1aee1c19b963"},"spec":{"containers":[{"image":"busybox","imagePullPolicy":"Always","name":"busybox","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","volumeMounts":[{"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":"kube-api-access-7xvcq","readOnly":true}]}],"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority","priority":0,"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccount":"default","serviceAccountName":"default","terminationGracePeriodSeconds":30,"tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300},{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300}],"volumes":[{"name":"kube-api-access-7xvcq","projected":{"defaultMode":420,"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}},{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}}]},"status":{"conditions":[{"lastTransitionTime":"2026-12-04T20:57:31Z","message":"no nodes available to schedule pods","reason":"Unschedulable","status":"False","type":"PodScheduled"}],"phase":"Pending","qosClass":"BestEffort"}})" +
      "}";
  auto time = [&](auto parse) {
    const int n = 5000;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) REQUIRE(parse().is_object());
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
               .count() /
           n;
  };
  double whole = time([&] { return json::parse(line); });
  double cut = time([&] { return json::parse(*without_managed_fields(line)); });
  WARN("parse of a " << line.size() << "-byte pod event: " << whole
                     << " us; managedFields cut first: " << cut << " us");
}

}  // namespace
}  // namespace k3c::client

// A binding's edit of the cached pod text: the bytes the whole parsed pod would give.
#include <catch2/catch.hpp>

#include "roles/apiserver/actions.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

// A pending pod as the cache holds it (resourceVersion set, managedFields kept).
json cached_pod() {
  return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":
    "2026-12-05T05:43:23Z","generateName":"web-","labels":{"app":"web"},"managedFields":[{
    "apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:containers":{".":{},
    "k:{\"name\":\"app\"}":{".":{},"f:image":{}}}}},"manager":"m","operation":"Update",
    "time":"2026-12-05T05:43:23Z"}],"name":"web-x","namespace":"ns","resourceVersion":"41",
    "uid":"u-1"},"spec":{"containers":[{"image":"busybox","name":"app"}],"priority":0},
    "status":{"phase":"Pending","qosClass":"BestEffort","conditions":[{"type":"PodScheduled",
    "status":"False","reason":"Unschedulable","message":"0/1 nodes are available"}]}})");
}

// What the binding stores, made from the parsed pod.
std::string bound_by_tree(json pod, const std::string& node, const std::string& now) {
  pod["metadata"].erase("resourceVersion");
  pod["spec"]["nodeName"] = node;
  for (json& c : pod["status"]["conditions"]) {
    if (c["type"] != "PodScheduled") continue;
    c["status"] = "True";
    c["lastTransitionTime"] = now;
    c.erase("reason");
    c.erase("message");
  }
  return pod.dump();
}

TEST_CASE("a binding edits spec and status in the cached text: the same bytes as the tree's") {
  const std::string now = "2026-12-05T06:00:00Z";
  json pod = cached_pod();
  auto edited = actions::bound_pod_text(pod.dump(), "n1", now);
  REQUIRE(edited);
  CHECK(*edited == bound_by_tree(pod, "n1", now));

  // No PodScheduled condition yet: one is added.
  pod["status"].erase("conditions");
  edited = actions::bound_pod_text(pod.dump(), "n1", now);
  REQUIRE(edited);
  const json bound = json::parse(*edited);
  CHECK(bound["status"]["conditions"] == json::array({{{"type", "PodScheduled"},
                                                       {"status", "True"},
                                                       {"lastProbeTime", nullptr},
                                                       {"lastTransitionTime", now}}}));
  CHECK_FALSE(bound["metadata"].contains("resourceVersion"));

  // Escapes below the members edited are copied as they are.
  json annotated = cached_pod();
  annotated["metadata"]["annotations"] = {{"a\"b", "x\ny"}};
  edited = actions::bound_pod_text(annotated.dump(), "n1", now);
  REQUIRE(edited);
  CHECK(*edited == bound_by_tree(annotated, "n1", now));

  // Left to the parsed pod (which answers the conflicts as upstream): a pod being deleted,
  // one bound already, one without a status object, a text with an escaped key where the
  // edit reads keys.
  json deleting = cached_pod();
  deleting["metadata"]["deletionTimestamp"] = now;
  CHECK_FALSE(actions::bound_pod_text(deleting.dump(), "n1", now));
  json bound_already = cached_pod();
  bound_already["spec"]["nodeName"] = "n0";
  CHECK_FALSE(actions::bound_pod_text(bound_already.dump(), "n1", now));
  json no_status = cached_pod();
  no_status.erase("status");
  CHECK_FALSE(actions::bound_pod_text(no_status.dump(), "n1", now));
  json escaped = cached_pod();
  escaped["a\"b"] = 1;
  CHECK_FALSE(actions::bound_pod_text(escaped.dump(), "n1", now));
}

}  // namespace
}  // namespace k3c::apiserver

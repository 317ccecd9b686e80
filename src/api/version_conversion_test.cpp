// HorizontalPodAutoscaler between autoscaling/v1 and autoscaling/v2, as upstream converts.
#include "api/version_conversion.h"

#include <catch2/catch.hpp>

using k3c::api::convert_to_version;
using nlohmann::json;

namespace {

json v2_hpa() {
  return json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "default", "annotations": {"team": "a"}},
    "spec": {
      "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
      "minReplicas": 2, "maxReplicas": 5,
      "metrics": [
        {"type": "Resource", "resource": {"name": "cpu",
          "target": {"type": "Utilization", "averageUtilization": 80}}},
        {"type": "Pods", "pods": {"metric": {"name": "qps"},
          "target": {"type": "AverageValue", "averageValue": "10"}}},
        {"type": "External", "external": {"metric": {"name": "queue",
          "selector": {"matchLabels": {"q": "jobs"}}},
          "target": {"type": "Value", "value": "30"}}}],
      "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}},
    "status": {
      "currentReplicas": 2, "desiredReplicas": 3,
      "currentMetrics": [
        {"type": "Resource", "resource": {"name": "cpu",
          "current": {"averageUtilization": 91, "averageValue": "200m"}}},
        {"type": "Pods", "pods": {"metric": {"name": "qps"}, "current": {"averageValue": "12"}}}],
      "conditions": [{"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale"}]}
  })");
}

json annotation(const json& o, const char* name) {
  return json::parse(o["metadata"]["annotations"][name].get<std::string>());
}

}  // namespace

TEST_CASE("hpa v2 -> v1: the CPU target in the spec, the rest in upstream's annotations") {
  json o = v2_hpa();
  REQUIRE(convert_to_version(o, "autoscaling/v1").is_ok());
  CHECK(o["apiVersion"] == "autoscaling/v1");
  CHECK(o["spec"]["targetCPUUtilizationPercentage"] == 80);
  CHECK(o["spec"]["minReplicas"] == 2);
  CHECK_FALSE(o["spec"].contains("metrics"));
  CHECK(annotation(o, k3c::api::kHpaMetricsAnnotation) == json::parse(R"([
    {"type": "Pods", "pods": {"metricName": "qps", "targetAverageValue": "10"}},
    {"type": "External", "external": {"metricName": "queue",
      "metricSelector": {"matchLabels": {"q": "jobs"}}, "targetValue": "30"}}])"));
  CHECK(annotation(o, k3c::api::kHpaBehaviorAnnotation)["scaleDown"]["stabilizationWindowSeconds"] ==
        60);
  CHECK(o["status"]["currentCPUUtilizationPercentage"] == 91);
  CHECK(o["status"]["desiredReplicas"] == 3);
  CHECK(annotation(o, k3c::api::kHpaCurrentMetricsAnnotation) ==
        json::parse(R"([{"type": "Pods", "pods": {"metricName": "qps",
                         "currentAverageValue": "12"}}])"));
  CHECK(annotation(o, k3c::api::kHpaConditionsAnnotation)[0]["reason"] == "ReadyForNewScale");
  CHECK(o["metadata"]["annotations"]["team"] == "a");
}

TEST_CASE("hpa v1 -> v2 -> v1 keeps everything; v2 -> v1 -> v2 too") {
  json v1 = v2_hpa();
  REQUIRE(convert_to_version(v1, "autoscaling/v1").is_ok());
  json back = v1;
  REQUIRE(convert_to_version(back, "autoscaling/v2").is_ok());
  CHECK(back["metadata"]["annotations"] == json({{"team", "a"}}));  // carried ones removed
  CHECK(back["spec"]["behavior"] == v2_hpa()["spec"]["behavior"]);
  CHECK(back["status"]["conditions"] == v2_hpa()["status"]["conditions"]);
  // Upstream's order: the annotation's metrics first, then the CPU target.
  REQUIRE(back["spec"]["metrics"].size() == 3);
  CHECK(back["spec"]["metrics"][0] == v2_hpa()["spec"]["metrics"][1]);
  CHECK(back["spec"]["metrics"][1] == v2_hpa()["spec"]["metrics"][2]);
  CHECK(back["spec"]["metrics"][2] == v2_hpa()["spec"]["metrics"][0]);
  // v1 keeps only the utilization of the CPU's current value.
  CHECK(back["status"]["currentMetrics"][1] ==
        json::parse(R"({"type": "Resource", "resource": {"name": "cpu",
                        "current": {"averageUtilization": 91}}})"));
  json again = back;
  REQUIRE(convert_to_version(again, "autoscaling/v1").is_ok());
  CHECK(again == v1);
}

TEST_CASE("hpa v1 as kubectl autoscale writes it; other kinds and versions are left alone") {
  json v1 = json::parse(R"({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4,
             "targetCPUUtilizationPercentage": 50}})");
  REQUIRE(convert_to_version(v1, "autoscaling/v2").is_ok());
  CHECK(v1["spec"]["metrics"] == json::parse(R"([{"type": "Resource", "resource": {"name": "cpu",
                                  "target": {"type": "Utilization", "averageUtilization": 50}}}])"));
  CHECK_FALSE(v1.contains("status"));
  CHECK_FALSE(v1["metadata"].contains("annotations"));

  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  REQUIRE(convert_to_version(pod, "autoscaling/v2").is_ok());
  CHECK(pod["apiVersion"] == "v1");
  CHECK(k3c::api::storage_version("autoscaling", "HorizontalPodAutoscaler") == "autoscaling/v2");
  CHECK(k3c::api::storage_version("apps", "Deployment").empty());
}

TEST_CASE("hpa v1 with a malformed carried annotation is refused, not stored half-converted") {
  json v1 = {{"apiVersion", "autoscaling/v1"},
             {"kind", "HorizontalPodAutoscaler"},
             {"metadata", {{"annotations", {{k3c::api::kHpaMetricsAnnotation, "{not json"}}}}},
             {"spec", {{"maxReplicas", 3}}}};
  auto s = convert_to_version(v1, "autoscaling/v2");
  CHECK(s.code() == k3c::Code::kInvalid);
  CHECK(s.message().find("autoscaling.alpha.kubernetes.io/metrics") != std::string::npos);
  json not_list = v1;
  not_list["metadata"]["annotations"][k3c::api::kHpaMetricsAnnotation] = "{}";
  CHECK(convert_to_version(not_list, "autoscaling/v2").code() == k3c::Code::kInvalid);
}

TEST_CASE("Event: events.k8s.io/v1 and core v1 are the same fields under other names") {
  json e = json::parse(R"({"apiVersion": "events.k8s.io/v1", "kind": "Event",
    "metadata": {"name": "web.1", "namespace": "default"},
    "eventTime": "2026-12-02T06:00:00.000000Z", "reportingController": "k3c/scheduler",
    "reportingInstance": "node-a", "action": "Binding", "reason": "Scheduled",
    "regarding": {"kind": "Pod", "name": "web"}, "note": "Successfully assigned",
    "type": "Normal", "deprecatedCount": 3, "series": {"count": 2,
    "lastObservedTime": "2026-12-02T06:01:00.000000Z"}})");
  json core = e;
  REQUIRE(convert_to_version(core, "v1").is_ok());
  CHECK(core["apiVersion"] == "v1");
  CHECK(core["involvedObject"] == e["regarding"]);
  CHECK(core["message"] == "Successfully assigned");
  CHECK(core["reportingComponent"] == "k3c/scheduler");
  CHECK(core["count"] == 3);
  CHECK(core["series"] == e["series"]);
  CHECK_FALSE(core.contains("note"));
  json back = core;
  REQUIRE(convert_to_version(back, "events.k8s.io/v1").is_ok());
  CHECK(back == e);
  CHECK(k3c::api::storage_version("events.k8s.io", "Event") == "v1");
  CHECK(convert_to_version(core, "autoscaling/v2").code() == k3c::Code::kInvalid);
}

TEST_CASE("may_need_conversion looks at the leading apiVersion only") {
  using k3c::api::may_need_conversion;
  CHECK_FALSE(may_need_conversion(R"({"apiVersion":"v1","kind":"Event"})", "v1"));
  CHECK(may_need_conversion(R"({"apiVersion":"v1beta1","kind":"Event"})", "v1"));
  CHECK(may_need_conversion(R"({"apiVersion":"events.k8s.io/v1","kind":"Event"})", "v1"));
  CHECK(may_need_conversion(R"({"kind":"Event","apiVersion":"v1"})", "v1"));
  CHECK_FALSE(may_need_conversion(json({{"apiVersion", "autoscaling/v2"}, {"kind", "X"}}).dump(),
                                  "autoscaling/v2"));
}

TEST_CASE("may_need_conversion decides on the first conversion_check_length bytes") {
  using k3c::api::conversion_check_length;
  using k3c::api::may_need_conversion;
  for (const std::string object :
       {R"({"apiVersion":"v1","kind":"Event"})", R"({"apiVersion":"v1beta1","kind":"Event"})",
        R"({"apiVersion":"events.k8s.io/v1","kind":"Event"})", R"({"apiVersion":"v1"})",
        R"({"kind":"Event","apiVersion":"v1"})"}) {
    for (std::string_view version : {"v1", "events.k8s.io/v1", "autoscaling/v2"}) {
      const std::string head = object.substr(0, conversion_check_length(version));
      CHECK(may_need_conversion(head, version) == may_need_conversion(object, version));
    }
  }
}

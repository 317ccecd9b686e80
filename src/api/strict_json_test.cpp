// Unknown and duplicate field detection against the built-in schemas.
#include "api/strict_json.h"

#include <catch2/catch.hpp>

namespace k3c::api {
namespace {

const SchemaSet& strict_schemas() {
  static const SchemaSet set = SchemaSet::builtin().value();
  return set;
}

const MessageType& strict_deployment() {
  return *strict_schemas().kind({"apps", "v1", "Deployment"});
}

// Upstream's own example body: duplicates and unknown fields at several depths.
constexpr std::string_view kBody = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "dupename", "name": "web", "labels": {"app": "nginx"},
               "unknownMeta": "metaVal"},
  "spec": {
    "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
    "paused": true, "paused": false,
    "selector": {"matchLabels": {"app": "nginx"}},
    "template": {"metadata": {"labels": {"app": "nginx"}},
      "spec": {"containers": [{"name": "nginx", "image": "nginx:latest",
        "unknownNested": {"deep": [1, {"x": 2}]}, "imagePullPolicy": "Always",
        "imagePullPolicy": "Never"}]}}}})";

TEST_CASE("unknown and duplicate fields in document order, as upstream lists them") {
  auto checked = parse_checked(kBody, &strict_deployment(), /*drop_unknown=*/true);
  REQUIRE(checked);
  CHECK(checked->problems ==
        std::vector<std::string>{
            R"(duplicate field "metadata.name")", R"(unknown field "metadata.unknownMeta")",
            R"(unknown field "spec.unknown1")", R"(unknown field "spec.unknownDupe")",
            R"(duplicate field "spec.paused")",
            R"(unknown field "spec.template.spec.containers[0].unknownNested")",
            R"(duplicate field "spec.template.spec.containers[0].imagePullPolicy")"});
  // Dropped, and the last of repeated keys wins.
  const auto& v = checked->value;
  CHECK(v["metadata"]["name"] == "web");
  CHECK_FALSE(v["metadata"].contains("unknownMeta"));
  CHECK_FALSE(v["spec"].contains("unknown1"));
  CHECK(v["spec"]["paused"] == false);
  CHECK(v["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Never");
  CHECK_FALSE(v["spec"]["template"]["spec"]["containers"][0].contains("unknownNested"));
}

TEST_CASE("without a type only duplicates are reported and nothing is dropped") {
  auto checked =
      parse_checked(R"({"a": {"b": 1, "b": 2}, "c": [{"d": 1}, {"d": 1, "d": 2}]})", nullptr, true);
  REQUIRE(checked);
  CHECK(checked->problems ==
        std::vector<std::string>{R"(duplicate field "a.b")", R"(duplicate field "d")"});
  CHECK(checked->value["c"][1]["d"] == 2);
}

TEST_CASE("kept when not dropping; maps and raw fields are not looked into") {
  auto checked = parse_checked(
      R"({"metadata": {"labels": {"any": "x"}, "annotations": {"y": "z"}}, "data": {"k": "v"},
          "spec": {"foo": 1}})",
      strict_schemas().kind({"", "v1", "ConfigMap"}), false);
  REQUIRE(checked);
  CHECK(checked->problems == std::vector<std::string>{R"(unknown field "spec")"});
  CHECK(checked->value.contains("spec"));
}

TEST_CASE("malformed JSON is nullopt") { CHECK_FALSE(parse_checked("{\"a\":", nullptr, false)); }

TEST_CASE("unknown fields of a decoded document, list indexes in the path") {
  auto doc = nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Service", "spec": {
      "ports": [{"port": 80}, {"port": 81, "nodeport": 30001}], "bogus": true}})");
  auto problems = unknown_fields(doc, *strict_schemas().kind({"", "v1", "Service"}), true);
  CHECK(problems == std::vector<std::string>{R"(unknown field "spec.bogus")",
                                             R"(unknown field "spec.ports[1].nodeport")"});
  CHECK_FALSE(doc["spec"].contains("bogus"));
  CHECK_FALSE(doc["spec"]["ports"][1].contains("nodeport"));
}

TEST_CASE("values of the wrong JSON type are named as Go's decoder names them") {
  const MessageType& svc = *strict_schemas().kind({"", "v1", "Service"});
  CHECK(type_mismatch(nlohmann::json::parse(R"({"spec": {"type": 5}})"), svc) ==
        "json: cannot unmarshal number into Go struct field ServiceSpec.spec.type of type string");
  CHECK(type_mismatch(nlohmann::json::parse(R"({"spec": {"ports": [{"port": 80},
      {"port": "x"}]}})"),
                      svc) ==
        "json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type "
        "int32");
  CHECK(type_mismatch(nlohmann::json::parse(R"({"metadata": {"labels": {"a": 1}}})"), svc) ==
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type "
        "string");
  CHECK(type_mismatch(nlohmann::json::parse(R"({"metadata": "x"})"), svc) ==
        "json: cannot unmarshal string into Go struct field Service.metadata of type "
        "v1.ObjectMeta");
  CHECK_FALSE(type_mismatch(nlohmann::json::parse(R"({"spec": {"ports": [{"port": 80,
      "targetPort": "http"}], "clusterIP": null}, "extra": [1]})"),
                            svc));
}

}  // namespace
}  // namespace k3c::api

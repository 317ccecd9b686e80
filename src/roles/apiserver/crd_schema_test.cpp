// Pruning, defaulting and validation against structural schemas, and printer-column paths.
#include "roles/apiserver/crd_schema.h"

#include <catch2/catch.hpp>

#include "roles/apiserver/custom_resource.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

const json kSchema = json::parse(R"({
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "required": ["image"],
      "properties": {
        "image": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "port": {"x-kubernetes-int-or-string": true},
        "when": {"type": "string", "format": "date-time"},
        "items": {"type": "array", "maxItems": 2,
                  "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "note": {"type": "string", "nullable": true, "maxLength": 3}
      }
    }
  }
})");

std::vector<std::string> messages(const json& object) {
  std::vector<std::string> out;
  for (const auto& c : crd::validate(object, kSchema)) out.push_back(c.field + ": " + c.message);
  return out;
}

TEST_CASE("prune drops unknown fields outside preserve-unknown-fields and reports them") {
  json o = json::parse(R"({"apiVersion":"x/v1","kind":"K","metadata":{"name":"a"},
    "spec":{"image":"x","foo":1,"items":[{"name":"n","bar":2}],"free":{"any":{"thing":1}},
    "labels":{"k":"v"}},"extra":true})");
  auto removed = crd::prune(o, kSchema);
  CHECK(removed == std::vector<std::string>{"extra", "spec.foo", "spec.items[0].bar"});
  CHECK(o["spec"]["free"]["any"]["thing"] == 1);
  CHECK(o["spec"]["labels"]["k"] == "v");
  CHECK(o["metadata"]["name"] == "a");
}

TEST_CASE("defaults fill absent properties") {
  json o = {{"spec", {{"image", "x"}}}};
  crd::apply_defaults(o, kSchema);
  CHECK(o["spec"]["replicas"] == 1);
}

TEST_CASE("validation speaks upstream's words") {
  CHECK(messages({{"spec", {{"image", "x"}, {"replicas", "two"}}}}) ==
        std::vector<std::string>{"spec.replicas: Invalid value: \"string\": spec.replicas in body "
                                 "must be of type integer: \"string\""});
  CHECK(messages({{"spec", json::object()}}) ==
        std::vector<std::string>{"spec.image: Required value"});
  CHECK(messages({{"spec", {{"image", "x"}, {"replicas", 0}}}}) ==
        std::vector<std::string>{"spec.replicas: Invalid value: 0: spec.replicas in body should be "
                                 "greater than or equal to 1"});
  CHECK(messages({{"spec", {{"image", "x"}, {"replicas", 11}}}}) ==
        std::vector<std::string>{"spec.replicas: Invalid value: 11: spec.replicas in body should "
                                 "be less than or equal to 10"});
  CHECK(messages({{"spec", {{"image", "x"}, {"mode", "c"}}}}) ==
        std::vector<std::string>{
            "spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\""});
  CHECK(messages({{"spec", {{"image", "X1"}}}}) ==
        std::vector<std::string>{
            "spec.image: Invalid value: \"X1\": spec.image in body should match '^[a-z]+$'"});
  CHECK(messages({{"spec", {{"image", ""}}}}).front() ==
        "spec.image: Invalid value: \"\": spec.image in body should be at least 1 chars long");
  CHECK(messages({{"spec", {{"image", "x"}, {"note", "long"}}}}) ==
        std::vector<std::string>{"spec.note: Too long: may not be more than 3 bytes"});
  CHECK(messages({{"spec", {{"image", "x"}, {"note", nullptr}, {"port", "http"}}}}).empty());
  CHECK(messages({{"spec", {{"image", "x"}, {"port", 80}}}}).empty());
  CHECK(messages({{"spec", {{"image", "x"}, {"port", true}}}}).size() == 1);
  CHECK(messages({{"spec", {{"image", "x"}, {"when", "yesterday"}}}}).size() == 1);
  CHECK(messages({{"spec", {{"image", "x"}, {"when", "2026-01-02T03:04:05Z"}}}}).empty());
  CHECK(
      messages({{"spec",
                 {{"image", "x"}, {"items", {json::object(), json::object(), json::object()}}}}}) ==
      std::vector<std::string>{"spec.items: Too many: 3: must have at most 2 items"});
  CHECK(messages({{"spec", {{"image", "x"}, {"labels", {{"k", 1}}}}}}) ==
        std::vector<std::string>{"spec.labels.k: Invalid value: \"integer\": spec.labels.k in "
                                 "body must be of type string: \"integer\""});
}

TEST_CASE("printer-column paths select values") {
  json o = json::parse(R"({"spec":{"a":{"b":1},"list":[{"n":"x"},{"n":"y"}]},
    "status":{"conditions":[{"type":"A","status":"False"},{"type":"Ready","status":"True"}]}})");
  CHECK(eval_json_path(o, ".spec.a.b") == std::vector<json>{1});
  CHECK(eval_json_path(o, ".spec.list[1].n") == std::vector<json>{"y"});
  CHECK(eval_json_path(o, ".spec.list[*].n") == std::vector<json>{"x", "y"});
  CHECK(eval_json_path(o, ".status.conditions[?(@.type==\"Ready\")].status") ==
        std::vector<json>{"True"});
  CHECK(eval_json_path(o, ".spec.missing").empty());
  CHECK(eval_json_path(o, "spec[").empty());
}

TEST_CASE("CRD validation names the basic mistakes as upstream") {
  json crd = json::parse(R"({"metadata":{"name":"wrong"},"spec":{"group":"example",
    "names":{"plural":"foos","kind":"Foo"},"scope":"Namespaced",
    "versions":[{"name":"v1","served":true,"storage":false,
                 "schema":{"openAPIV3Schema":{"type":"object"}}}]}})");
  default_crd(crd);
  std::vector<std::string> got;
  for (const auto& c : validate_crd(crd)) got.push_back(c.field + ": " + c.message);
  CHECK(got.size() == 3);
  CHECK(got[0] ==
        "metadata.name: Invalid value: \"wrong\": must be spec.names.plural+\".\"+spec.group");
  CHECK(got[1] ==
        "spec.group: Invalid value: \"example\": should be a domain with at least one dot");
  CHECK(got[2].rfind("spec.versions: Invalid value: ", 0) == 0);
  CHECK(crd["spec"]["names"]["singular"] == "foo");
  CHECK(crd["spec"]["names"]["listKind"] == "FooList");
}

}  // namespace
}  // namespace k3c::apiserver

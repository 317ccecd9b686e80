// Decodes /openapi/v2's protobuf with a minimal reader and checks the fields kubectl 1.27/1.28
// read (cli-runtime query_param_verifier.go); the numbers are gnostic's OpenAPIv2.proto.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/version.h"
#include "roles/apiserver/openapi.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

uint64_t read_varint(std::string_view& in) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    REQUIRE(!in.empty());
    auto byte = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    v |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return v;
  }
  FAIL("varint too long");
  return 0;
}

// The message's fields by number; every field in this document is length-delimited.
std::multimap<uint64_t, std::string_view> fields(std::string_view message) {
  std::multimap<uint64_t, std::string_view> out;
  while (!message.empty()) {
    uint64_t key = read_varint(message);
    REQUIRE((key & 7) == 2);
    uint64_t size = read_varint(message);
    REQUIRE(size <= message.size());
    out.emplace(key >> 3, message.substr(0, size));
    message.remove_prefix(size);
  }
  return out;
}

std::vector<std::string_view> all(std::string_view message, uint64_t field) {
  std::vector<std::string_view> out;
  for (const auto& [number, value] : fields(message)) {
    if (number == field) out.push_back(value);
  }
  return out;
}

std::string_view one(std::string_view message, uint64_t field) {
  auto values = all(message, field);
  REQUIRE(values.size() == 1);
  return values[0];
}

// Paths.path (2) -> NamedPathItem{name 1, value 2}: the PathItem for `path`.
std::string_view path_item(std::string_view document, std::string_view path) {
  for (auto named : all(one(document, 8), 2)) {
    if (one(named, 1) == path) return one(named, 2);
  }
  FAIL("no path item " << path);
  return {};
}

struct DecodedOperation {
  std::string gvk_yaml;
  std::vector<std::string> query_parameters;
};

// PathItem.patch (8) -> Operation: vendor_extension 13, parameters 8 down to the
// QueryParameterSubSchema (ParametersItem 1 -> Parameter 2 -> NonBodyParameter 3).
DecodedOperation patch_operation(std::string_view item) {
  REQUIRE(fields(item).size() == 1);
  std::string_view op = one(item, 8);
  DecodedOperation out;
  for (auto extension : all(op, 13)) {
    if (one(extension, 1) == "x-kubernetes-group-version-kind")
      out.gvk_yaml = one(one(extension, 2), 2);
  }
  for (auto parameter : all(op, 8)) {
    std::string_view query = one(one(one(parameter, 1), 2), 3);
    REQUIRE(one(query, 2) == "query");
    REQUIRE(one(query, 6) == "string");
    out.query_parameters.emplace_back(one(query, 4));
  }
  return out;
}

api::ResourceRegistry registry() {
  auto r = api::ResourceRegistry::builtin();
  INFO(r.status().to_string());
  REQUIRE(r.is_ok());
  return std::move(r).value();
}

TEST_CASE("openapi v2 protobuf has swagger, info and a PATCH operation per kind") {
  OpenApiV2 v2(registry());
  std::string_view doc = v2.protobuf();
  REQUIRE(one(doc, 1) == "2.0");
  REQUIRE(one(one(doc, 2), 1) == "Kubernetes");
  REQUIRE(one(one(doc, 2), 2) == version::kKubernetesVersion);

  auto configmaps =
      patch_operation(path_item(doc, "/api/v1/namespaces/{namespace}/configmaps/{name}"));
  REQUIRE(configmaps.gvk_yaml == "group: \"\"\nkind: \"ConfigMap\"\nversion: \"v1\"\n");
  REQUIRE(configmaps.query_parameters ==
          std::vector<std::string>{"fieldValidation", "dryRun", "fieldManager"});

  auto deployments =
      patch_operation(path_item(doc, "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"));
  REQUIRE(deployments.gvk_yaml == "group: \"apps\"\nkind: \"Deployment\"\nversion: \"v1\"\n");

  // kubectl judges custom resources by Namespace's operation.
  auto namespaces = patch_operation(path_item(doc, "/api/v1/namespaces/{name}"));
  REQUIRE(namespaces.gvk_yaml == "group: \"\"\nkind: \"Namespace\"\nversion: \"v1\"\n");
  REQUIRE(namespaces.query_parameters.front() == "fieldValidation");
}

TEST_CASE("openapi v2 JSON is the same document in Swagger 2.0 shape") {
  OpenApiV2 v2(registry());
  json doc = json::parse(v2.json());
  REQUIRE(doc["swagger"] == "2.0");
  REQUIRE(doc["info"]["version"] == version::kKubernetesVersion);
  json op = doc["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
  REQUIRE(op["x-kubernetes-group-version-kind"] ==
          json{{"group", ""}, {"version", "v1"}, {"kind", "ConfigMap"}});
  REQUIRE(op["parameters"][0]["name"] == "fieldValidation");
  REQUIRE(op["parameters"][0]["in"] == "query");
  REQUIRE(doc["paths"].size() == all(one(v2.protobuf(), 8), 2).size());
}

}  // namespace
}  // namespace k3c::apiserver

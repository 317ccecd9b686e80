#include "core/yaml_json.h"

#include <catch2/catch.hpp>

namespace k3c {
namespace {

TEST_CASE("YAML converts to JSON with YAML 1.2 scalars") {
  auto j = yaml_to_json(R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  labels: {a: "1", b: 2}
data:
  quoted: "true"
  plain: hello world
  n: 5
  f: 1.5
  t: true
  nothing: ~
  list: [1, "two", null]
)");
  REQUIRE(j.is_ok());
  REQUIRE((*j)["metadata"]["labels"]["a"] == "1");
  REQUIRE((*j)["metadata"]["labels"]["b"] == 2);
  REQUIRE((*j)["data"]["quoted"] == "true");
  REQUIRE((*j)["data"]["plain"] == "hello world");
  REQUIRE((*j)["data"]["n"] == 5);
  REQUIRE((*j)["data"]["f"] == 1.5);
  REQUIRE((*j)["data"]["t"] == true);
  REQUIRE((*j)["data"]["nothing"].is_null());
  REQUIRE((*j)["data"]["list"][1] == "two");
}

TEST_CASE("YAML errors and limits") {
  auto bad = yaml_to_json("a: [1, 2");
  REQUIRE(bad.status().code() == Code::kBadRequest);
  REQUIRE_THAT(bad.status().message(), Catch::Contains("line"));
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "[";
  for (int i = 0; i < 200; ++i) deep += "]";
  REQUIRE(yaml_to_json(deep).status().code() == Code::kBadRequest);
  auto docs = yaml_documents_to_json("a: 1\n---\nb: 2\n---\n");
  REQUIRE(docs->size() == 2);
}

}  // namespace
}  // namespace k3c

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
  REQUIRE(yaml_documents_to_json("--- # first\na: 1\n--- \n---\nb: [1]")->size() == 2);
  REQUIRE((*yaml_documents_to_json("s: '--- not a separator'\n"))[0]["s"] == "--- not a separator");
  // yaml-cpp's LoadAll never returned on this (found by test/fuzz); one document is parsed
  // as yaml_to_json parses it.
  REQUIRE(yaml_documents_to_json(",").is_ok() == yaml_to_json(",").is_ok());
}

TEST_CASE("YAML that is not UTF-8 is refused, never turned into JSON that cannot be written") {
  // A stray byte in a key (found by test/fuzz: serializing the JSON threw).
  auto stray = yaml_to_json("metadata: {\"creationTimes\xeftamp\": null}\n");
  REQUIRE(stray.status().code() == Code::kBadRequest);
  REQUIRE_THAT(stray.status().message(), Catch::Contains("UTF-8"));
  REQUIRE(yaml_documents_to_json("a: \xff\n").status().code() == Code::kBadRequest);
  // An escape for a lone surrogate makes bytes that are not UTF-8 either.
  REQUIRE(yaml_to_json("a: \"\\ud800\"\n").status().code() == Code::kBadRequest);
  REQUIRE(yaml_to_json("a: \"\xc3\xa9\\u00e9\"\n")->at("a") == "\xc3\xa9\xc3\xa9");
}

}  // namespace
}  // namespace k3c

#include "api/patch.h"

#include <catch2/catch.hpp>

namespace k3c::api {
namespace {

using nlohmann::json;

TEST_CASE("merge patch: objects merge, null deletes, arrays replace") {
  json doc = {{"metadata", {{"labels", {{"a", "1"}, {"b", "2"}}}}}, {"spec", {{"list", {1, 2}}}}};
  json out = apply_merge_patch(
      doc, {{"metadata", {{"labels", {{"a", nullptr}, {"c", "3"}}}}}, {"spec", {{"list", {3}}}}});
  REQUIRE(out["metadata"]["labels"] == json({{"b", "2"}, {"c", "3"}}));
  REQUIRE(out["spec"]["list"] == json({3}));
}

TEST_CASE("json patch: operations apply or fail clearly") {
  json doc = {{"spec", {{"replicas", 1}}}};
  auto ok =
      apply_json_patch(doc, json::parse(R"([{"op":"replace","path":"/spec/replicas","value":3}])"));
  REQUIRE(ok.is_ok());
  REQUIRE((*ok)["spec"]["replicas"] == 3);
  auto missing = apply_json_patch(doc, json::parse(R"([{"op":"remove","path":"/spec/nope"}])"));
  REQUIRE(missing.status().code() == Code::kInvalid);
  auto failed_test =
      apply_json_patch(doc, json::parse(R"([{"op":"test","path":"/spec/replicas","value":9}])"));
  REQUIRE_FALSE(failed_test.is_ok());
  REQUIRE(apply_json_patch(doc, json::object()).status().code() == Code::kBadRequest);
  REQUIRE(apply_json_patch(doc, json::parse(R"([{"path":"/x"}])")).status().code() ==
          Code::kBadRequest);
}

TEST_CASE("json depth") {
  REQUIRE(json_depth(json(1)) == 0);
  REQUIRE(json_depth(json::parse(R"({"a":[{"b":1}]})")) == 3);
  // A body nested far deeper than the limit is measured without recursing all the way down
  // (300,000 levels overflowed the stack before; found by test/fuzz).
  const size_t levels = 300000;
  auto deep = json::parse(std::string(levels, '[') + std::string(levels, ']'));
  REQUIRE(json_depth(deep) == kMaxJsonDepth + 2);
  REQUIRE(json_depth(json::parse(std::string(100, '[') + std::string(100, ']'))) == 100);
}

}  // namespace
}  // namespace k3c::api

#include "api/strategic_merge.h"

#include <catch2/catch.hpp>

#include "api/internal/go_format.h"

namespace k3c::api {
namespace {

using nlohmann::json;

const SchemaSet& smp_schemas() {
  static const SchemaSet set = SchemaSet::builtin().value();
  return set;
}
const MessageType* smp_pod() { return smp_schemas().kind({"", "v1", "Pod"}); }
const MessageType* smp_deployment() { return smp_schemas().kind({"apps", "v1", "Deployment"}); }

json patched(const json& original, const char* patch, const MessageType* type = smp_pod()) {
  auto r = apply_strategic_merge_patch(original, json::parse(patch), type);
  INFO(r.status().message());
  REQUIRE(r.is_ok());
  return *r;
}
Status failed(const json& original, const char* patch, const MessageType* type = smp_pod()) {
  auto r = apply_strategic_merge_patch(original, json::parse(patch), type);
  REQUIRE_FALSE(r.is_ok());
  return r.status();
}

json two_containers() {
  return json::parse(R"({"metadata":{"name":"p","labels":{"a":"1","b":"2"},
    "finalizers":["x","y"]},
    "spec":{"containers":[
      {"name":"web","image":"nginx:1","args":["-a","-b"],
       "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
       "ports":[{"containerPort":80},{"containerPort":443}]},
      {"name":"side","image":"busybox"}],
    "nodeSelector":{"disk":"ssd","zone":"a"}}})");
}

std::vector<std::string> smp_names(const json& list, const char* key = "name") {
  std::vector<std::string> out;
  for (const auto& e : list) out.push_back(e[key].get<std::string>());
  return out;
}

TEST_CASE("smp: maps merge and null deletes") {
  json out = patched(two_containers(), R"({"metadata":{"labels":{"a":null,"c":"3"}}})");
  REQUIRE(out["metadata"]["labels"] == json({{"b", "2"}, {"c", "3"}}));
  REQUIRE(out["spec"] == two_containers()["spec"]);
}

TEST_CASE("smp: lists with a merge key merge element-wise") {
  json out =
      patched(two_containers(), R"({"spec":{"containers":[{"name":"web","image":"nginx:2"}]}})");
  const json& c = out["spec"]["containers"];
  REQUIRE(smp_names(c) == std::vector<std::string>{"web", "side"});
  REQUIRE(c[0]["image"] == "nginx:2");
  REQUIRE(c[0]["env"].size() == 2);  // untouched fields of the element stay
  REQUIRE(c[1]["image"] == "busybox");

  // A new element: patch items come in patch order, server-only ones keep their place.
  out = patched(two_containers(),
                R"({"spec":{"containers":[{"name":"new","image":"x"},{"name":"web"}]}})");
  REQUIRE(smp_names(out["spec"]["containers"]) == std::vector<std::string>{"new", "web", "side"});

  // Nested: env by name, ports by containerPort (a number).
  out = patched(two_containers(), R"({"spec":{"containers":[{"name":"web",
      "env":[{"name":"B","value":"two"},{"name":"C","value":"3"}],
      "ports":[{"containerPort":443,"name":"https"}]}]}})");
  const json& web = out["spec"]["containers"][0];
  REQUIRE(smp_names(web["env"]) == std::vector<std::string>{"A", "B", "C"});
  REQUIRE(web["env"][1]["value"] == "two");
  REQUIRE(web["ports"][1] == json({{"containerPort", 443}, {"name", "https"}}));
}

TEST_CASE("smp: lists without a merge strategy replace") {
  json out = patched(two_containers(), R"({"spec":{"containers":[{"name":"web","args":["-c"]}]}})");
  REQUIRE(out["spec"]["containers"][0]["args"] == json({"-c"}));
}

TEST_CASE("smp: primitive lists with strategy merge are unions; deleteFromPrimitiveList") {
  json out = patched(two_containers(), R"({"metadata":{"finalizers":["z","x"]}})");
  REQUIRE(out["metadata"]["finalizers"] == json({"z", "x", "y"}));
  out = patched(two_containers(), R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["x"]}})");
  REQUIRE(out["metadata"]["finalizers"] == json({"y"}));
  REQUIRE(
      failed(two_containers(), R"({"metadata":{"$deleteFromPrimitiveList":["x"]}})").message() ==
      "invalid patch format of primitive list");
}

TEST_CASE("smp: $patch directives in list elements") {
  json out =
      patched(two_containers(), R"({"spec":{"containers":[{"name":"side","$patch":"delete"}]}})");
  REQUIRE(smp_names(out["spec"]["containers"]) == std::vector<std::string>{"web"});

  out = patched(two_containers(), R"({"spec":{"containers":[{"name":"web",
      "ports":[{"containerPort":80,"$patch":"delete"}]}]}})");
  REQUIRE(out["spec"]["containers"][0]["ports"] == json::parse(R"([{"containerPort":443}])"));

  out = patched(two_containers(),
                R"({"spec":{"containers":[{"$patch":"replace"},{"name":"only","image":"i"}]}})");
  REQUIRE(out["spec"]["containers"] == json::parse(R"([{"name":"only","image":"i"}])"));

  Status s = failed(two_containers(), R"({"spec":{"containers":[{"$patch":"delete"}]}})");
  REQUIRE(s.code() == Code::kBadRequest);
  REQUIRE(s.message() == "map: map[$patch:delete] does not contain declared merge key: name");
  REQUIRE(failed(two_containers(), R"({"spec":{"containers":[{"$patch":"merge"}]}})").message() ==
          "merging lists cannot yet be specified in the patch");
  REQUIRE(failed(two_containers(), R"({"spec":{"containers":[{"image":"x"}]}})").message() ==
          "map: map[image:x] does not contain declared merge key: name");
}

TEST_CASE("smp: $patch directives in maps") {
  json out = patched(two_containers(), R"({"spec":{"nodeSelector":{"$patch":"replace","k":"v"}}})");
  REQUIRE(out["spec"]["nodeSelector"] == json({{"k", "v"}}));
  out = patched(two_containers(), R"({"spec":{"nodeSelector":{"$patch":"delete"}}})");
  REQUIRE(out["spec"]["nodeSelector"] == json::object());
  Status s = failed(two_containers(), R"({"spec":{"$patch":"bogus"}})");
  REQUIRE(s.code() == Code::kBadRequest);
  REQUIRE(s.message() == "unknown patch type: bogus in map: map[$patch:bogus]");
}

TEST_CASE("smp: $setElementOrder orders the merged list") {
  // What kubectl apply sends when it changes one image and swaps the order.
  json out = patched(two_containers(), R"({"spec":{
      "$setElementOrder/containers":[{"name":"side"},{"name":"web"}],
      "containers":[{"name":"web","image":"nginx:3"}]}})");
  REQUIRE(smp_names(out["spec"]["containers"]) == std::vector<std::string>{"side", "web"});
  REQUIRE(out["spec"]["containers"][1]["image"] == "nginx:3");
  REQUIRE_FALSE(out["spec"].contains("$setElementOrder/containers"));

  // kubectl apply removing env B: a delete item plus the order of what remains.
  out = patched(two_containers(), R"({"spec":{"$setElementOrder/containers":[{"name":"web"},
      {"name":"side"}],"containers":[{"$setElementOrder/env":[{"name":"A"}],
      "env":[{"$patch":"delete","name":"B"}],"name":"web"}]}})");
  REQUIRE(smp_names(out["spec"]["containers"][0]["env"]) == std::vector<std::string>{"A"});

  Status s = failed(two_containers(), R"({"spec":{"$setElementOrder/containers":[{"name":"web"}],
      "containers":[{"name":"new"}]}})");
  REQUIRE(s.code() == Code::kBadRequest);
  REQUIRE(s.message() ==
          "The order in patch list:\n[map[name:new]]\n doesn't match $setElementOrder "
          "list:\n[map[name:web]]\n");
}

TEST_CASE("smp: $retainKeys clears the fields not listed") {
  json d = json::parse(R"({"spec":{"strategy":{"type":"RollingUpdate",
      "rollingUpdate":{"maxSurge":1}}}})");
  json out = patched(d, R"({"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}})",
                     smp_deployment());
  REQUIRE(out["spec"]["strategy"] == json({{"type", "Recreate"}}));
  Status s = failed(d, R"({"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}})",
                    smp_deployment());
  REQUIRE(s.message() == "invalid patch format of retainKeys");
  REQUIRE(
      failed(d, R"({"spec":{"strategy":{"$retainKeys":"type"}}})", smp_deployment()).message() ==
      "invalid patch format of retainKeys");
}

TEST_CASE("smp: without schema data lists replace") {
  json out = patched(two_containers(), R"({"spec":{"containers":[{"name":"web"}]}})", nullptr);
  REQUIRE(out["spec"]["containers"] == json::parse(R"([{"name":"web"}])"));
  // A map under an unknown field still merges.
  out = patched(json::parse(R"({"x":{"a":1,"b":2}})"), R"({"x":{"a":null}})", nullptr);
  REQUIRE(out == json::parse(R"({"x":{"b":2}})"));
}

TEST_CASE("smp: new content carries no directives") {
  json out = patched(json::parse(R"({"spec":{}})"), R"({"spec":{"containers":[
      {"name":"a","$setElementOrder/env":[{"name":"E"}],"env":[{"name":"E"}]}]}})");
  REQUIRE(out["spec"]["containers"] == json::parse(R"([{"name":"a","env":[{"name":"E"}]}])"));
}

TEST_CASE("smp: malformed patches are 4xx") {
  REQUIRE(failed(two_containers(), "[1]").code() == Code::kBadRequest);
  Status s = failed(json::parse(R"({"metadata":{"finalizers":[]}})"),
                    R"({"metadata":{"finalizers":[["a"]]}})");
  REQUIRE(s.code() == Code::kInvalid);
  REQUIRE(s.message() == "lists of lists are not supported");
  REQUIRE(failed(two_containers(), R"({"metadata":{"finalizers":[1]}})").message() ==
          "list element types are not identical: [[x y] [1]]");
}

TEST_CASE("go formatting") {
  using internal::go_value;
  REQUIRE(go_value(json::parse(R"({"b":[1,2.5],"a":"x","c":null,"d":true})")) ==
          "map[a:x b:[1 2.5] c:<nil> d:true]");
  REQUIRE(go_value(json(1000000)) == "1e+06");
  REQUIRE(go_value(json(123456)) == "123456");
  REQUIRE(go_value(json(0.0001)) == "0.0001");
}

}  // namespace
}  // namespace k3c::api

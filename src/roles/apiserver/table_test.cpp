#include "roles/apiserver/table.h"

#include <catch2/catch.hpp>

#include "core/ids.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

TEST_CASE("human durations as upstream prints AGE") {
  REQUIRE(human_duration(5s) == "5s");
  REQUIRE(human_duration(119s) == "119s");
  REQUIRE(human_duration(200s) == "3m20s");
  REQUIRE(human_duration(600s) == "10m");
  REQUIRE(human_duration(3h + 5min) == "3h5m");
  REQUIRE(human_duration(10h) == "10h");
  REQUIRE(human_duration(51h) == "2d3h");
  REQUIRE(human_duration(24h * 30) == "30d");
  REQUIRE(human_duration(24h * 365 * 3 + 24h * 4) == "3y4d");
  REQUIRE(human_duration(-5s) == "<invalid>");
}

TEST_CASE("pod table has upstream's columns and cells") {
  auto now = *parse_rfc3339("2026-11-29T12:10:00Z");
  std::string pod = json{{"apiVersion", "v1"},
                         {"kind", "Pod"},
                         {"metadata",
                          {{"name", "web"},
                           {"namespace", "default"},
                           {"creationTimestamp", "2026-11-29T12:00:00Z"}}},
                         {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}}}}}},
                         {"status",
                          {{"phase", "Running"},
                           {"podIP", "10.42.0.5"},
                           {"containerStatuses",
                            {{{"name", "c"},
                              {"ready", true},
                              {"restartCount", 2},
                              {"state", {{"running", json::object()}}}}}}}}}
                        .dump();
  json t = make_table("", "Pod", {&pod}, "7", "", {}, now);
  REQUIRE(t["kind"] == "Table");
  REQUIRE(t["columnDefinitions"][0]["name"] == "Name");
  REQUIRE(t["columnDefinitions"][5]["priority"] == 1);
  REQUIRE(t["rows"][0]["cells"] ==
          json({"web", "1/1", "Running", "2", "10m", "10.42.0.5", "n1", "<none>", "<none>"}));
  REQUIRE(t["rows"][0]["object"]["kind"] == "PartialObjectMetadata");
  REQUIRE(t["metadata"]["resourceVersion"] == "7");
}

}  // namespace
}  // namespace k3c::apiserver

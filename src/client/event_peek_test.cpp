// The watch event scan: type and metadata.resourceVersion found where a parse would find
// them, and nothing where it is not sure.
#include "client/event_peek.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace k3c::client {
namespace {

using nlohmann::json;

TEST_CASE("peek_event reads the type and the object's resourceVersion") {
  auto peek = peek_event(
      R"({"type":"MODIFIED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","resourceVersion":"42","uid":"u"},"spec":{}}})");
  REQUIRE(peek);
  CHECK(peek->type == "MODIFIED");
  CHECK(peek->resource_version == "42");

  // As nlohmann writes it (sorted keys, whitespace allowed): an Event's involvedObject comes
  // before its metadata and carries a resourceVersion of its own; labels may be named so too.
  json object = {{"involvedObject", {{"kind", "Pod"}, {"resourceVersion", "7"}}},
                 {"metadata",
                  {{"annotations", {{"x", "{\"resourceVersion\":\"9\"} [\\"}}},
                   {"labels", {{"resourceVersion", "8"}}},
                   {"finalizers", json::array({"a", "b"})},
                   {"generation", 3},
                   {"deletionTimestamp", nullptr},
                   {"resourceVersion", "100"}}}};
  for (int indent : {-1, 2}) {
    // The event's members in the order servers write them (nlohmann would sort them).
    std::string line = R"({"type": "ADDED", "object": )" + object.dump(indent) + "}";
    peek = peek_event(line);
    REQUIRE(peek);
    CHECK(peek->type == "ADDED");
    CHECK(peek->resource_version == "100");
  }
}

TEST_CASE("peek_event gives up where only a parse can tell") {
  // No resourceVersion (an ERROR's Status), escapes in the value, the object before the type,
  // truncated or malformed lines, not an object at all.
  for (const char* line : {
           R"({"type":"ERROR","object":{"kind":"Status","metadata":{},"code":410}})",
           R"({"type":"ADDED","object":{"metadata":{"resourceVersion":"4\u0032"}}})",
           R"({"type":"ADD\"ED","object":{"metadata":{"resourceVersion":"42"}}})",
           R"({"object":{"metadata":{"resourceVersion":"42"}},"type":"ADDED"})",
           R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":)",
           R"({"type":"ADDED","object":{"spec":"unterminated}})",
           R"({"type":"ADDED","object":{"metadata":{"resourceVersion":42}}})",
           R"(["type","ADDED"])",
           "",
       }) {
    INFO(line);
    CHECK_FALSE(peek_event(line));
  }
}

}  // namespace
}  // namespace k3c::client

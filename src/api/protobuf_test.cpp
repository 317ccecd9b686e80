// Tests for protobuf decoding: real kubectl bodies (testdata/kubectl_protobuf.txt) against the
// JSON kubectl itself prints for the same object, each special type, zero-value handling,
// and malformed or hostile input.
#include "api/protobuf.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "api/internal/proto_wire.h"

extern const std::string_view k3c_embedded_kubectl_protobuf;

using namespace k3c;
using namespace k3c::api;
using internal::WireWriter;
using nlohmann::json;

namespace {

struct Case {
  std::string command;
  std::string body;
  json expected;  // null for commands without a dry-run form
};

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::vector<Case> kubectl_cases() {
  std::vector<std::string> lines;
  std::string_view data = k3c_embedded_kubectl_protobuf;
  while (!data.empty()) {
    auto nl = data.find('\n');
    std::string line(data.substr(0, nl));
    data.remove_prefix(nl == std::string_view::npos ? data.size() : nl + 1);
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  std::vector<Case> cases;
  for (size_t i = 0; i + 2 < lines.size(); i += 3) {
    Case c{lines[i].substr(lines[i].find(": ") + 2), unhex(lines[i + 1]), nullptr};
    if (lines[i + 2] != "-") c.expected = json::parse(lines[i + 2]);
    cases.push_back(std::move(c));
  }
  return cases;
}

// Go prints a zero metav1.Time as null where a protobuf decode leaves the field out.
json without_nulls(json j) {
  if (!j.is_object()) return j;
  json out = json::object();
  for (auto& [k, v] : j.items()) {
    if (!v.is_null()) out[k] = without_nulls(v);
  }
  return out;
}

const SchemaSet& proto_schemas() {
  static const SchemaSet set = SchemaSet::builtin().value();
  return set;
}
const ResourceRegistry& registry() {
  static const ResourceRegistry r = ResourceRegistry::builtin().value();
  return r;
}

std::string envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  WireWriter type_meta;
  type_meta.add_bytes(1, api_version).add_bytes(2, kind);
  WireWriter unknown;
  unknown.add_bytes(1, type_meta.data()).add_bytes(2, raw).add_bytes(3, "").add_bytes(4, "");
  return std::string(kProtobufMagic) + unknown.data();
}

// A schema with one field of every special and plain type, for synthetic messages.
const SchemaSet& test_schemas() {
  static const SchemaSet set = SchemaSet::from_yaml({{"t.yaml", R"(
package: t.v1
kinds:
  t.io/v1: [All]
types:
  All:
    fields:
    - {name: s, number: 1, type: string}
    - {name: i32, number: 2, type: int32}
    - {name: i64, number: 3, type: int64}
    - {name: b, number: 4, type: bool}
    - {name: d, number: 5, type: double}
    - {name: raw, number: 6, type: bytes}
    - {name: time, number: 7, type: Time}
    - {name: micro, number: 8, type: MicroTime}
    - {name: duration, number: 9, type: Duration}
    - {name: quantity, number: 10, type: Quantity}
    - {name: port, number: 11, type: IntOrString}
    - {name: ext, number: 12, type: RawExtension}
    - {name: keptInt, number: 13, type: int32, keepZero: true}
    - {name: keptBool, number: 14, type: bool, keepZero: true}
    - {name: nums, number: 15, type: "[]int32"}
    - {name: extra, number: 16, type: "map[string][]string"}
    - {name: child, number: 17, type: All}
    - {inline: true, number: 18, type: Inlined}
  Inlined:
    fields:
    - {name: inner, number: 1, type: string}
)"}}).value();
  return set;
}

Result<ProtobufObject> decode_all(const std::string& raw) {
  return decode_protobuf_message(raw, *test_schemas().type("t.v1.All"));
}

}  // namespace

TEST_CASE("protobuf: the wire document's `kubectl create ns demo` body") {
  const std::string body = unhex(
      "6b3873000a0f0a02763112094e616d657370616365121c0a140a0464656d6f12001a0022002a003200380042"
      "0012001a020a001a002200");
  auto decoded = decode_protobuf(body, proto_schemas(), registry());
  REQUIRE(decoded.is_ok());
  // "" namespace, generation 0 and the empty creationTimestamp are absent, as in JSON.
  CHECK(decoded->object == json::parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"demo"},"spec":{},"status":{}})"));
  CHECK(decoded->unknown_fields == 0);
  CHECK(decoded->gvk == GroupVersionKind{"", "v1", "Namespace"});
}

TEST_CASE("protobuf: real kubectl bodies decode to what kubectl prints for the object") {
  auto cases = kubectl_cases();
  REQUIRE(cases.size() == 23);
  // Checked by hand against the Go types: TokenRequestStatus.token and
  // SubjectAccessReviewStatus.allowed have no omitempty, so Go's JSON carries them too.
  const std::map<std::string, json> hand_checked = {
      {"create token bot --duration=1h --audience=api",
       json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{},
           "spec":{"audiences":["api"],"expirationSeconds":3600},"status":{"token":""}})")},
      {"auth can-i get pods",
       json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
           "metadata":{},"spec":{"resourceAttributes":{"namespace":"default","verb":"get",
           "resource":"pods"}},"status":{"allowed":false}})")},
      {"auth can-i get /healthz",
       json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
           "metadata":{},"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"}},
           "status":{"allowed":false}})")},
      {"auth whoami",
       json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview",
           "metadata":{},"status":{"userInfo":{}}})")},
  };
  for (const Case& c : cases) {
    INFO(c.command);
    auto decoded = decode_protobuf(c.body, proto_schemas(), registry());
    REQUIRE(decoded.is_ok());
    CHECK(decoded->unknown_fields == 0);
    if (c.expected.is_null()) {
      REQUIRE(hand_checked.count(c.command) == 1);
      CHECK(decoded->object == hand_checked.at(c.command));
    } else {
      // kubectl prints metadata without the empty object when it has no fields left.
      json expected = without_nulls(c.expected);
      CHECK(decoded->object.dump() == expected.dump());
    }
  }
}

TEST_CASE("protobuf: special types") {
  WireWriter time, micro, duration, quantity, port_int, port_str, ext;
  time.add_varint(1, 1796040000).add_varint(2, 5);
  micro.add_varint(1, 1796040000).add_varint(2, 123456789);
  duration.add_varint(1, 3600'000'000'000);
  quantity.add_bytes(1, "500m");
  port_int.add_varint(1, 0).add_varint(2, 8080);
  port_str.add_varint(1, 1).add_bytes(3, "http");
  ext.add_bytes(1, R"({"a":[1,2]})");
  WireWriter all;
  all.add_bytes(7, time.data())
      .add_bytes(8, micro.data())
      .add_bytes(9, duration.data())
      .add_bytes(10, quantity.data())
      .add_bytes(11, port_int.data())
      .add_bytes(12, ext.data())
      .add_bytes(6, std::string("\x00\xff", 2))
      .add_fixed64(5, 0x3ff8000000000000);  // 1.5
  auto decoded = decode_all(all.data());
  REQUIRE(decoded.is_ok());
  CHECK(decoded->object == json::parse(R"({"time":"2026-11-30T12:00:00Z",
      "micro":"2026-11-30T12:00:00.123456Z","duration":"1h0m0s","quantity":"500m","port":8080,
      "ext":{"a":[1,2]},"raw":"AP8=","d":1.5})"));

  WireWriter named;
  named.add_bytes(11, port_str.data());
  CHECK(decode_all(named.data())->object == json{{"port", "http"}});

  WireWriter bad_ext, inner;
  inner.add_bytes(1, std::string("k8s\0\x0a", 5));
  bad_ext.add_bytes(12, inner.data());
  CHECK(decode_all(bad_ext.data()).status().code() == Code::kBadRequest);
}

TEST_CASE("protobuf: zero values, keepZero, lists, maps, inline fields") {
  WireWriter zero_time, extra_value, entry, child;
  extra_value.add_bytes(1, "x").add_bytes(1, "y");
  entry.add_bytes(1, "k").add_bytes(2, extra_value.data());
  child.add_bytes(1, "nested").add_varint(13, 0);
  WireWriter all;
  all.add_bytes(1, "")
      .add_varint(2, 0)
      .add_varint(3, 0)
      .add_varint(4, 0)
      .add_bytes(7, zero_time.data())
      .add_varint(13, 0)
      .add_varint(14, 0)  // kept: pointer-like fields
      .add_varint(15, 1)
      .add_bytes(15, std::string("\x02\x03", 2))  // unpacked then packed
      .add_bytes(16, entry.data())
      .add_bytes(17, child.data())
      .add_bytes(18, WireWriter().add_bytes(1, "in").data())
      .add_varint(2, static_cast<uint64_t>(int64_t{-5}));  // negative int32: 10 bytes
  auto decoded = decode_all(all.data());
  REQUIRE(decoded.is_ok());
  CHECK(decoded->object == json::parse(R"({"i32":-5,"keptInt":0,"keptBool":false,"nums":[1,2,3],
      "extra":{"k":["x","y"]},"child":{"s":"nested","keptInt":0},"inner":"in"})"));

  // A later zero clears an earlier value, as protobuf's "last one wins" says.
  WireWriter twice;
  twice.add_bytes(1, "a").add_bytes(1, "");
  CHECK(decode_all(twice.data())->object == json::object());
}

TEST_CASE("protobuf: unknown fields are skipped and counted") {
  WireWriter all;
  all.add_bytes(1, "a").add_varint(99, 1).add_bytes(100, "zz").add_fixed32(101, 7);
  auto decoded = decode_all(all.data());
  REQUIRE(decoded.is_ok());
  CHECK(decoded->object == json{{"s", "a"}});
  CHECK(decoded->unknown_fields == 3);
  CHECK(decoded->unknown_examples.front() == "t.v1.All#99");
}

TEST_CASE("protobuf: malformed and hostile bodies are BadRequest") {
  auto message_of = [](const Result<ProtobufObject>& r) { return r.status().message(); };
  // Wrong wire type for a string field.
  auto wrong = decode_all(WireWriter().add_varint(1, 5).data());
  CHECK(wrong.status().code() == Code::kBadRequest);
  CHECK(message_of(wrong) ==
        "protobuf: t.v1.All.s (field 1): wire type varint, expected length-delimited");
  // A length that runs past the end, inside a nested message.
  auto past = decode_all(WireWriter()
                             .add_bytes(17, std::string("\x0a\x09"
                                                        "ab",
                                                        4))
                             .data());
  CHECK(message_of(past).find("runs past the end") != std::string::npos);
  // Invalid UTF-8 in a string.
  CHECK(decode_all(WireWriter().add_bytes(1, "\xc3\x28").data()).status().code() ==
        Code::kBadRequest);
  CHECK(decode_all(WireWriter().add_bytes(1, "\xed\xa0\x80").data()).status().code() ==
        Code::kBadRequest);
  CHECK(decode_all(WireWriter().add_bytes(1, "h\xc3\xa9\xf0\x9f\x99\x82").data()).is_ok());
  // Nesting: 100 levels decode, 101 are refused without deep recursion.
  auto nest = [](int levels) {
    std::string m = WireWriter().add_bytes(1, "leaf").data();
    for (int i = 1; i < levels; ++i) m = WireWriter().add_bytes(17, m).data();
    return m;
  };
  CHECK(decode_all(nest(100)).is_ok());
  CHECK(message_of(decode_all(nest(101))).find("nesting deeper than 100") != std::string::npos);

  const std::string ns = WireWriter().add_bytes(1, WireWriter().add_bytes(1, "x").data()).data();
  CHECK(decode_protobuf(envelope("v1", "Namespace", ns), proto_schemas(), registry()).is_ok());
  CHECK(decode_protobuf("{\"kind\":1}", proto_schemas(), registry()).status().code() ==
        Code::kBadRequest);
  std::string body = envelope("v1", "Namespace", ns);
  for (size_t cut = 4; cut < body.size(); ++cut) {  // every truncation fails cleanly
    auto r = decode_protobuf(body.substr(0, cut), proto_schemas(), registry());
    if (r.is_ok()) continue;  // a cut between fields can still be a valid (shorter) message
    CHECK(r.status().code() == Code::kBadRequest);
  }
  CHECK(decode_protobuf(envelope("v1", "Nope", ns), proto_schemas(), registry()).status().code() ==
        Code::kBadRequest);
  // A kind the registry serves but the schemas lack (every built-in kind has one now, so a
  // schema set without Namespace stands in): 415 with a clear message.
  auto unserved = decode_protobuf(envelope("v1", "Namespace", ns), test_schemas(), registry());
  CHECK(unserved.status().code() == Code::kUnsupportedMediaType);
  CHECK(unserved.status().message().find("send application/json") != std::string::npos);
  CHECK(decode_protobuf(std::string(kProtobufMagic), proto_schemas(), registry())
            .status()
            .message() == "protobuf: the envelope has no typeMeta");
}

TEST_CASE("protobuf: a CustomResourceDefinition with oneOf and JSON-valued schema fields") {
  auto w = [] { return WireWriter(); };
  auto entry = [&](std::string_view key, const std::string& value) {
    return w().add_bytes(1, key).add_bytes(2, value).data();
  };
  const std::string string_item =
      w().add_bytes(5, "string").add_bytes(8, w().add_bytes(1, "\"x\"").data()).data();
  const std::string list_prop = w().add_bytes(5, "array")
                                    .add_fixed64(9, 0x3ff8000000000000)  // maximum 1.5
                                    .add_bytes(24, w().add_bytes(1, string_item).data())
                                    .data();
  const std::string spec_prop = w().add_bytes(5, "object")
                                    .add_bytes(30, w().add_varint(1, 1).data())  // allows: true
                                    .add_varint(38, 1)
                                    .data();
  const std::string closed_prop =
      w().add_bytes(5, "object")
          .add_bytes(30, w().add_varint(1, 0).data())  // allows: false, no schema
          .add_bytes(32, entry("a", w().add_bytes(2, "b").add_bytes(2, "c").data()))
          .data();
  // additionalProperties with both: the schema wins, as upstream's MarshalJSON decides.
  const std::string both_prop =
      w().add_bytes(30,
                    w().add_varint(1, 1).add_bytes(2, w().add_bytes(5, "integer").data()).data())
          .data();
  const std::string root = w().add_bytes(5, "object")
                               .add_bytes(29, entry("spec", spec_prop))
                               .add_bytes(29, entry("list", list_prop))
                               .add_bytes(29, entry("closed", closed_prop))
                               .add_bytes(29, entry("both", both_prop))
                               .data();
  const std::string version = w().add_bytes(1, "v1")
                                  .add_varint(2, 1)
                                  .add_varint(3, 1)
                                  .add_bytes(4, w().add_bytes(1, root).data())
                                  .data();
  const std::string spec = w().add_bytes(1, "x.io")
                               .add_bytes(3, w().add_bytes(1, "ws").add_bytes(4, "W").data())
                               .add_bytes(4, "Namespaced")
                               .add_bytes(7, version)
                               .data();
  const std::string crd =
      w().add_bytes(1, w().add_bytes(1, "ws.x.io").data()).add_bytes(2, spec).data();
  auto decoded =
      decode_protobuf(envelope("apiextensions.k8s.io/v1", "CustomResourceDefinition", crd),
                      proto_schemas(), registry());
  REQUIRE(decoded.is_ok());
  CHECK(decoded->unknown_fields == 0);
  CHECK(decoded->object == json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1",
      "kind":"CustomResourceDefinition","metadata":{"name":"ws.x.io"},
      "spec":{"group":"x.io","names":{"plural":"ws","kind":"W"},"scope":"Namespaced",
      "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{
        "type":"object","properties":{
          "spec":{"type":"object","additionalProperties":true,
                  "x-kubernetes-preserve-unknown-fields":true},
          "list":{"type":"array","maximum":1.5,"items":{"type":"string","default":"x"}},
          "closed":{"type":"object","additionalProperties":false,"dependencies":{"a":["b","c"]}},
          "both":{"additionalProperties":{"type":"integer"}}}}}}]}})"));
}

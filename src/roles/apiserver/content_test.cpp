// Tests for decode_body: a protobuf body from kubectl becomes the same JSON document as the
// equivalent JSON body; malformed protobuf is 400; unsupported media types stay 415.
#include "roles/apiserver/content.h"

#include <catch2/catch.hpp>

using namespace k3c;
using namespace k3c::apiserver;

namespace {

http::Request content_request(std::string content_type, std::string body) {
  http::Request r;
  r.method = "POST";
  r.target = "/api/v1/namespaces";
  r.headers = {{"content-type", std::move(content_type)}};
  r.body = std::move(body);
  return r;
}

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

}  // namespace

TEST_CASE("decode_body: protobuf and JSON bodies of one object decode alike") {
  const auto schemas = api::SchemaSet::builtin().value();
  const auto registry = api::ResourceRegistry::builtin().value();
  const BodyCodecs codecs{schemas, registry};
  // `kubectl create ns demo` (kubectl 1.33.1, the wire document's example).
  auto proto =
      decode_body(content_request("application/vnd.kubernetes.protobuf",
                                  unhex("6b3873000a0f0a02763112094e616d657370616365121c0a140a0464"
                                        "656d6f12001a0022002a0032003800420012001a020a001a002200")),
                  codecs);
  auto json =
      decode_body(content_request("application/json", R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"demo"},"spec":{},"status":{}})"),
                  codecs);
  REQUIRE(proto.ok());
  REQUIRE(json.ok());
  CHECK(proto.value() == json.value());

  auto broken = decode_body(
      content_request("application/vnd.kubernetes.protobuf", std::string("k8s\0\x0a\x7f", 6)),
      codecs);
  REQUIRE(!broken.ok());
  CHECK(broken.error().code == Code::kBadRequest);
  auto cbor = decode_body(content_request("application/cbor", "\xa0"), codecs);
  REQUIRE(!cbor.ok());
  CHECK(cbor.error().code == Code::kUnsupportedMediaType);
}

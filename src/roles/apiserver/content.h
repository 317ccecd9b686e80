// Content negotiation for API requests: decoding request bodies (JSON, YAML, and
// Kubernetes protobuf through the schemas, doc/schemas.md) and reading the Accept header
// (JSON, or the meta.k8s.io Table form kubectl asks for).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "api/registry.h"
#include "api/schema.h"
#include "http/http.h"
#include "roles/apiserver/api_errors.h"

namespace k3c::apiserver {

// A value or an upstream-shaped error: the REST layer's Result.
template <typename T>
class ApiResult {
 public:
  ApiResult(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

// What decode_body needs besides the request: protobuf bodies are transcoded to JSON with
// the schemas, and the registry tells a served kind without a schema (415) from an unknown
// one (400). Both must outlive the call.
struct BodyCodecs {
  const api::SchemaSet& schemas;
  const api::ResourceRegistry& registry;
};

// The request body as a JSON document, by its Content-Type. A protobuf body becomes the
// same document as the equivalent JSON body (apiVersion and kind included).
ApiResult<nlohmann::json> decode_body(const http::Request& request, const BodyCodecs& codecs);

enum class OutputFormat { kJson, kTable };
// kTable when the Accept header asks for as=Table (v1 or v1beta1) before plain JSON; an
// error (406) when it accepts nothing we can produce.
ApiResult<OutputFormat> negotiate_output(const http::Request& request);

http::Response json_response(int status, std::string body);
// Any body with its Content-Type.
http::Response body_response(int status, std::string body, std::string content_type);

}  // namespace k3c::apiserver

// Content negotiation for API requests: decoding request bodies (JSON, YAML; protobuf is
// recognised and refused clearly until its decoder exists) and reading the Accept header
// (JSON, or the meta.k8s.io Table form kubectl asks for).
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "http/http.h"
#include "roles/apiserver/api_errors.h"

namespace k3c::apiserver {

// A value or an upstream-shaped error: the REST layer's Result.
template <typename T>
class ApiResult {
 public:
  ApiResult(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  ApiResult(ApiError error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

// The request body as a JSON document, by its Content-Type.
ApiResult<nlohmann::json> decode_body(const http::Request& request);

enum class OutputFormat { kJson, kTable };
// kTable when the Accept header asks for as=Table (v1 or v1beta1) before plain JSON; an
// error (406) when it accepts nothing we can produce.
ApiResult<OutputFormat> negotiate_output(const http::Request& request);

http::Response json_response(int status, std::string body);

}  // namespace k3c::apiserver

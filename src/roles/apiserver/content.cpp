// Request body decoding and Accept negotiation (see content.h).
#include "roles/apiserver/content.h"

#include "api/patch.h"
#include "api/protobuf.h"
#include "core/log.h"
#include "core/yaml_json.h"

namespace k3c::apiserver {
namespace {

std::string_view media_type(std::string_view content_type) {
  auto semi = content_type.find(';');
  auto t = content_type.substr(0, semi);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  return t;
}

ApiError unsupported() {
  return api_error(
      Code::kUnsupportedMediaType,
      "the body of the request was in an unknown format - accepted media types "
      "include: application/json, application/yaml, application/vnd.kubernetes.protobuf");
}

constexpr std::string_view kProtobufType = "application/vnd.kubernetes.protobuf";

ApiResult<nlohmann::json> decode_protobuf_body(const http::Request& request,
                                               const BodyCodecs& codecs) {
  auto decoded = api::decode_protobuf(request.body, codecs.schemas, codecs.registry);
  if (!decoded.is_ok()) return from_status(decoded.status());
  if (decoded->unknown_fields > 0) {
    // Unknown field numbers are newer fields than our schemas know; kept out, not fatal.
    log::for_role("apiserver")
        ->debug("protobuf {} {}: skipped {} unknown field(s), e.g. {}", request.method,
                request.target, decoded->unknown_fields, decoded->unknown_examples.front());
  }
  return std::move(decoded->object);
}

}  // namespace

ApiResult<nlohmann::json> decode_body(const http::Request& request, const BodyCodecs& codecs) {
  std::string_view type = media_type(request.header("content-type").value_or("application/json"));
  nlohmann::json doc;
  if (type == kProtobufType) {
    auto decoded = decode_protobuf_body(request, codecs);
    if (!decoded.ok()) return decoded;
    doc = std::move(decoded.value());
  } else if (type == "application/json" || type == "application/merge-patch+json" ||
             type == "application/json-patch+json" ||
             type == "application/strategic-merge-patch+json" ||
             type == "application/apply-patch+yaml" || type == "application/yaml" ||
             type == "*/*" || type.empty()) {
    if (type == "application/yaml" || type == "application/apply-patch+yaml") {
      auto y = yaml_to_json(request.body);
      if (!y.is_ok()) return bad_request(y.status().message());
      doc = std::move(y).value();
    } else {
      doc = nlohmann::json::parse(request.body, nullptr, /*allow_exceptions=*/false);
      if (doc.is_discarded()) {
        // Find the offending position for a message like upstream's.
        try {
          [[maybe_unused]] auto reparsed = nlohmann::json::parse(request.body);
        } catch (const nlohmann::json::parse_error& e) {
          return bad_request(std::string("json: ") + e.what());
        }
        return bad_request("json: malformed body");
      }
    }
  } else {
    return unsupported();
  }
  if (api::json_depth(doc) > api::kMaxJsonDepth) {
    return bad_request("json: exceeded max depth of " + std::to_string(api::kMaxJsonDepth));
  }
  return doc;
}

ApiResult<OutputFormat> negotiate_output(const http::Request& request) {
  std::string_view accept = request.header("accept").value_or("application/json");
  bool json_ok = false;
  size_t start = 0;
  while (start <= accept.size()) {
    size_t comma = accept.find(',', start);
    std::string_view item =
        accept.substr(start, comma == std::string_view::npos ? accept.npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    std::string_view type = media_type(item);
    if (type == "application/json" && item.find("as=Table") != std::string_view::npos &&
        item.find("g=meta.k8s.io") != std::string_view::npos) {
      return OutputFormat::kTable;  // the first acceptable form wins
    }
    if (type == "application/json" && item.find("as=") == std::string_view::npos) {
      return OutputFormat::kJson;
    }
    if (type == "*/*" || type == "application/*" || type.empty()) json_ok = true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (json_ok) return OutputFormat::kJson;
  ApiError e =
      api_error(Code::kNotAcceptable,
                "only the following media types are accepted: application/json, application/yaml, "
                "application/json;as=Table;v=v1;g=meta.k8s.io");
  return e;
}

http::Response body_response(int status, std::string body, std::string content_type) {
  http::Response r;
  r.status = status;
  r.body = std::move(body);
  r.set_header("Content-Type", std::move(content_type));
  return r;
}

http::Response json_response(int status, std::string body) {
  return body_response(status, std::move(body), "application/json");
}

}  // namespace k3c::apiserver

// /openapi/v2 (see openapi.h): a Swagger 2.0 document holding only the PATCH operations,
// encoded by hand as gnostic's protobuf message openapi.v2.Document
// (github.com/google/gnostic-models, openapiv2/OpenAPIv2.proto). The fields written:
//
//   Document       swagger=1 "2.0", info=2 Info, paths=8 Paths
//   Info           title=1, version=2
//   Paths          path=2 repeated NamedPathItem
//   NamedPathItem  name=1 (the URL template), value=2 PathItem
//   PathItem       patch=8 Operation
//   Operation      parameters=8 repeated ParametersItem, responses=9 Responses,
//                  vendor_extension=13 repeated NamedAny
//   ParametersItem parameter=1 Parameter -> non_body_parameter=2 NonBodyParameter
//                  -> query_parameter_sub_schema=3 QueryParameterSubSchema
//   QueryParameterSubSchema  in=2 "query", description=3, name=4, type=6 "string"
//   Responses      response_code=1 NamedResponseValue{name=1 "200", value=2 ResponseValue
//                  {response=1 Response{description=1}}}
//   NamedAny       name=1 "x-kubernetes-group-version-kind", value=2 Any{yaml=2}
//
// kubectl 1.27/1.28 (cli-runtime resource/query_param_verifier.go) look for the PATCH
// operation whose x-kubernetes-group-version-kind matches the object and, when it lists a
// query parameter named fieldValidation, skip client-side validation. Kinds it cannot find
// (custom resources) are judged by core/v1 Namespace's operation.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/version.h"
#include "roles/apiserver/openapi.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

// Appends protobuf fields to a buffer. Every field this document needs is length-delimited
// (strings and embedded messages), so that is the only wire type written.
class ProtoWriter {
 public:
  ProtoWriter& bytes(uint32_t field, std::string_view value) {
    varint(uint64_t{field} << 3 | kLengthDelimited);
    varint(value.size());
    out_.append(value);
    return *this;
  }
  ProtoWriter& message(uint32_t field, const ProtoWriter& m) { return bytes(field, m.out_); }
  std::string take() && { return std::move(out_); }

 private:
  static constexpr uint64_t kLengthDelimited = 2;
  void varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    out_.push_back(static_cast<char>(v));
  }
  std::string out_;
};

constexpr std::string_view kGvkExtension = "x-kubernetes-group-version-kind";

// The extension's value as gnostic keeps it: YAML text. Quoted as JSON strings (valid YAML)
// so the core group's "" survives.
std::string gvk_yaml(const api::GroupVersionKind& gvk) {
  return "group: " + json(gvk.group).dump() + "\nkind: " + json(gvk.kind).dump() +
         "\nversion: " + json(gvk.version).dump() + "\n";
}

ProtoWriter query_parameter(const QueryParameter& p) {
  ProtoWriter sub;
  sub.bytes(2, "query").bytes(3, p.description).bytes(4, p.name).bytes(6, "string");
  ProtoWriter non_body;
  non_body.message(3, sub);
  ProtoWriter parameter;
  parameter.message(2, non_body);
  ProtoWriter item;
  item.message(1, parameter);
  return item;
}

ProtoWriter ok_responses() {
  ProtoWriter response;
  response.bytes(1, "OK");
  ProtoWriter value;
  value.message(1, response);
  ProtoWriter named;
  named.bytes(1, "200").message(2, value);
  ProtoWriter responses;
  responses.message(1, named);
  return responses;
}

ProtoWriter patch_path_item(const PatchOperation& op) {
  ProtoWriter operation;
  for (const auto& p : kPatchQueryParameters) operation.message(8, query_parameter(p));
  operation.message(9, ok_responses());
  ProtoWriter any;
  any.bytes(2, gvk_yaml(op.gvk));
  ProtoWriter extension;
  extension.bytes(1, kGvkExtension).message(2, any);
  operation.message(13, extension);
  ProtoWriter item;
  item.message(8, operation);
  ProtoWriter named;
  named.bytes(1, op.path).message(2, item);
  return named;
}

std::string protobuf_document(const std::vector<PatchOperation>& operations) {
  ProtoWriter info;
  info.bytes(1, "Kubernetes").bytes(2, version::kKubernetesVersion);
  ProtoWriter paths;
  for (const auto& op : operations) paths.message(2, patch_path_item(op));
  ProtoWriter document;
  document.bytes(1, "2.0").message(2, info).message(8, paths);
  return std::move(document).take();
}

std::string json_document(const std::vector<PatchOperation>& operations) {
  json parameters = json::array();
  for (const auto& p : kPatchQueryParameters) {
    parameters.push_back(
        {{"name", p.name}, {"in", "query"}, {"type", "string"}, {"description", p.description}});
  }
  json paths = json::object();
  for (const auto& op : operations) {
    paths[op.path]["patch"] = {
        {std::string(kGvkExtension),
         {{"group", op.gvk.group}, {"version", op.gvk.version}, {"kind", op.gvk.kind}}},
        {"parameters", parameters},
        {"responses", {{"200", {{"description", "OK"}}}}}};
  }
  return json{{"swagger", "2.0"},
              {"info", {{"title", "Kubernetes"}, {"version", version::kKubernetesVersion}}},
              {"paths", std::move(paths)}}
      .dump();
}

}  // namespace

OpenApiV2::OpenApiV2(const api::ResourceRegistry& registry) {
  auto operations = patch_operations(registry);
  protobuf_ = protobuf_document(operations);
  json_ = json_document(operations);
}

}  // namespace k3c::apiserver

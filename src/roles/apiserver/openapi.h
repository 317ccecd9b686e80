// The OpenAPI documents kubectl reads before create/apply/replace/edit. Both declare, for
// every kind with the patch verb, the PATCH operation with its fieldValidation query
// parameter; that is what makes kubectl leave validation to the server and send
// ?fieldValidation=Strict (kubectl-wire.md §5):
//  - /openapi/v3: the root index and one JSON document per group-version (kubectl 1.29+).
//  - /openapi/v2: one Swagger 2.0 document, as gnostic's protobuf `openapi.v2.Document`
//    (kubectl 1.27/1.28) or as JSON; openapi_v2.cpp lists the protobuf fields it writes.
// /openapi/v3 also carries each group-version's component schemas, generated from the
// project's schema descriptions (openapi_components.h) with our own words
// (api/schema_descriptions.h) for `kubectl explain`.
//
// Thread-safety: both classes are immutable after construction, apart from the documents
// and words OpenApiV3 loads on first use (each behind a std::once_flag).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/registry.h"
#include "api/schema.h"
#include "api/schema_descriptions.h"

namespace k3c::apiserver {

// One PATCH operation, as both OpenAPI versions declare it.
struct PatchOperation {
  std::string group_version_path;  // "api/v1" or "apis/apps/v1"
  std::string path;                // "/api/v1/namespaces/{namespace}/configmaps/{name}"
  api::GroupVersionKind gvk;
};

// The PATCH operations of every resource with the patch verb, in registry order.
std::vector<PatchOperation> patch_operations(const api::ResourceRegistry& registry);

// The query parameters every PATCH operation declares (all strings).
struct QueryParameter {
  std::string_view name;
  std::string_view description;
};
inline constexpr std::array<QueryParameter, 3> kPatchQueryParameters{{
    {"fieldValidation", "Strict, Warn or Ignore: what to do with unknown or duplicate fields"},
    {"dryRun", "All: run the request without persisting it"},
    {"fieldManager", "the name of the actor making the change"},
}};

class OpenApiV3 {
 public:
  // `builtin`: the schema descriptions the built-in kinds' components.schemas come from.
  // `custom`: components.schemas to add to group-version documents, keyed by their path
  // ("apis/stable.example.com/v1"): the kinds of custom resources.
  OpenApiV3(const api::ResourceRegistry& registry, std::shared_ptr<const api::SchemaSet> builtin,
            const std::map<std::string, nlohmann::json>& custom = {});
  const std::string& root() const { return root_; }
  // "api/v1" or "apis/apps/v1"; nullptr when not served. A document is rendered on first
  // use: most servers never get asked for most of them, and CRD changes rebuild this object.
  const std::string* group_version(const std::string& path) const;

 private:
  struct Document {
    nlohmann::json skeleton;  // paths and the custom kinds' schemas
    std::vector<api::GroupVersionKind> kinds;
    mutable std::once_flag rendered;
    mutable std::string text;
  };
  // The descriptions, parsed when the first document is rendered (nullptr if they do not
  // load, which the unit tests rule out for the embedded files).
  const api::SchemaDescriptions* words() const;

  std::shared_ptr<const api::SchemaSet> builtin_;
  mutable std::once_flag words_loaded_;
  mutable std::optional<api::SchemaDescriptions> words_;
  std::string root_;
  std::map<std::string, std::unique_ptr<Document>> documents_;
};

// Clients ask for "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" (kubectl
// 1.27/1.28) or the newer ".v1.0+protobuf" spelling; both start with this prefix.
inline constexpr std::string_view kOpenApiV2ProtobufPrefix =
    "application/com.github.proto-openapi.spec.v2";
// What upstream answers to either: Go's mime parser (which client-go runs on every response)
// rejects the '@' spelling, so it must not be sent back.
inline constexpr std::string_view kOpenApiV2ProtobufType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

class OpenApiV2 {
 public:
  explicit OpenApiV2(const api::ResourceRegistry& registry);
  // The gnostic openapi.v2.Document message.
  const std::string& protobuf() const { return protobuf_; }
  // The same document as Swagger 2.0 JSON.
  const std::string& json() const { return json_; }

 private:
  std::string protobuf_;
  std::string json_;
};

}  // namespace k3c::apiserver

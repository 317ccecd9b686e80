// The registry walk both OpenAPI versions share, and the /openapi/v3 documents (see openapi.h).
#include "roles/apiserver/openapi.h"

#include <functional>
#include <nlohmann/json.hpp>

#include "core/log.h"
#include "core/version.h"
#include "roles/apiserver/openapi_components.h"

namespace k3c::apiserver {

using nlohmann::json;

std::vector<PatchOperation> patch_operations(const api::ResourceRegistry& registry) {
  std::vector<PatchOperation> operations;
  for (const auto& r : registry.resources()) {
    if (!r.has_verb("patch")) continue;
    std::string gv_path =
        r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
    std::string path =
        "/" + gv_path + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural + "/{name}";
    operations.push_back({std::move(gv_path), std::move(path), {r.group, r.version, r.kind}});
  }
  return operations;
}

OpenApiV3::OpenApiV3(const api::ResourceRegistry& registry,
                     std::shared_ptr<const api::SchemaSet> builtin,
                     const std::map<std::string, json>& custom)
    : builtin_(std::move(builtin)) {
  json parameters = json::array();
  for (const auto& p : kPatchQueryParameters) {
    parameters.push_back({{"name", p.name},
                          {"in", "query"},
                          {"schema", {{"type", "string"}}},
                          {"description", p.description}});
  }
  for (const auto& op : patch_operations(registry)) {
    auto& doc = documents_[op.group_version_path];
    if (!doc) {
      doc = std::make_unique<Document>();
      doc->skeleton = {
          {"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", version::kKubernetesVersion}}},
          {"paths", json::object()},
          {"components", {{"schemas", json::object()}}}};
    }
    doc->kinds.push_back(op.gvk);
    doc->skeleton["paths"][op.path]["patch"] = {
        {"x-kubernetes-group-version-kind",
         {{"group", op.gvk.group}, {"version", op.gvk.version}, {"kind", op.gvk.kind}}},
        {"parameters", parameters}};
  }
  for (const auto& [path, extra] : custom) {
    auto doc = documents_.find(path);
    if (doc == documents_.end()) continue;
    for (auto& [name, schema] : extra.items()) {
      doc->second->skeleton["components"]["schemas"][name] = schema;
    }
  }
  // The hash names the content for clients' caches: the skeleton plus the build (which fixes
  // the built-in schemas), without rendering the document.
  json root = {{"paths", json::object()}};
  for (const auto& [path, doc] : documents_) {
    std::string hash = std::to_string(
        std::hash<std::string>{}(doc->skeleton.dump() + version::kGitCommit + version::kVersion));
    root["paths"][path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash}};
  }
  root_ = root.dump();
}

const api::SchemaDescriptions* OpenApiV3::words() const {
  std::call_once(words_loaded_, [&] {
    auto loaded = api::SchemaDescriptions::builtin(*builtin_);
    if (loaded.is_ok()) {
      words_ = std::move(loaded).value();
    } else {  // explain still works, with empty descriptions
      log::for_role("apiserver")->error("openapi: {}", loaded.status().message());
    }
  });
  return words_ ? &*words_ : nullptr;
}

const std::string* OpenApiV3::group_version(const std::string& path) const {
  auto it = documents_.find(path);
  if (it == documents_.end()) return nullptr;
  const Document& doc = *it->second;
  std::call_once(doc.rendered, [&] {
    json full = doc.skeleton;
    json& schemas = full["components"]["schemas"];
    if (builtin_) {
      // Named: a range-for over a temporary's items() would outlive the temporary (C++20).
      json components = openapi_components(*builtin_, doc.kinds, words());
      for (auto& [name, schema] : components.items()) {
        if (!schemas.contains(name)) schemas[name] = std::move(schema);
      }
    }
    doc.text = full.dump();
  });
  return &doc.text;
}

}  // namespace k3c::apiserver

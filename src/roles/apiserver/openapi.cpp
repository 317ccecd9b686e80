// The registry walk both OpenAPI versions share, and the /openapi/v3 documents (see openapi.h).
#include "roles/apiserver/openapi.h"

#include <functional>
#include <nlohmann/json.hpp>

#include "core/version.h"

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
                     const std::map<std::string, json>& schemas) {
  json parameters = json::array();
  for (const auto& p : kPatchQueryParameters) {
    parameters.push_back({{"name", p.name},
                          {"in", "query"},
                          {"schema", {{"type", "string"}}},
                          {"description", p.description}});
  }
  std::map<std::string, json> docs;
  for (const auto& op : patch_operations(registry)) {
    json& doc = docs[op.group_version_path];
    if (doc.is_null()) {
      doc = {{"openapi", "3.0.0"},
             {"info", {{"title", "Kubernetes"}, {"version", version::kKubernetesVersion}}},
             {"paths", json::object()},
             {"components", {{"schemas", json::object()}}}};
    }
    doc["paths"][op.path]["patch"] = {
        {"x-kubernetes-group-version-kind",
         {{"group", op.gvk.group}, {"version", op.gvk.version}, {"kind", op.gvk.kind}}},
        {"parameters", parameters}};
  }
  for (const auto& [path, extra] : schemas) {
    auto doc = docs.find(path);
    if (doc == docs.end()) continue;
    for (auto& [name, schema] : extra.items()) doc->second["components"]["schemas"][name] = schema;
  }
  json root = {{"paths", json::object()}};
  for (auto& [path, doc] : docs) {
    std::string text = doc.dump();
    std::string hash = std::to_string(std::hash<std::string>{}(text));
    root["paths"][path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash}};
    documents_[path] = std::move(text);
  }
  root_ = root.dump();
}

const std::string* OpenApiV3::group_version(const std::string& path) const {
  auto it = documents_.find(path);
  return it == documents_.end() ? nullptr : &it->second;
}

}  // namespace k3c::apiserver

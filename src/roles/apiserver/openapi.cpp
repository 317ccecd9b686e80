// /openapi/v3 documents (see openapi.h).
#include "roles/apiserver/openapi.h"

#include <functional>

#include <nlohmann/json.hpp>

#include "core/version.h"

namespace k3c::apiserver {

using nlohmann::json;

OpenApiV3::OpenApiV3(const api::ResourceRegistry& registry) {
  std::map<std::string, json> docs;
  for (const auto& r : registry.resources()) {
    if (!r.has_verb("patch")) continue;
    std::string gv_path = r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
    json& doc = docs[gv_path];
    if (doc.is_null()) {
      doc = {{"openapi", "3.0.0"},
             {"info", {{"title", "Kubernetes"}, {"version", version::kKubernetesVersion}}},
             {"paths", json::object()},
             {"components", {{"schemas", json::object()}}}};
    }
    std::string path = "/" + gv_path + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural + "/{name}";
    doc["paths"][path]["patch"] = {
        {"x-kubernetes-group-version-kind", {{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
        {"parameters",
         {{{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}},
           {"description", "Strict, Warn or Ignore: what to do with unknown or duplicate fields"}},
          {{"name", "dryRun"}, {"in", "query"}, {"schema", {{"type", "string"}}}},
          {{"name", "fieldManager"}, {"in", "query"}, {"schema", {{"type", "string"}}}}}}};
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

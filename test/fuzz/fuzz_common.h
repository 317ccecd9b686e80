// Shared by the libFuzzer targets (doc/fuzzing.md): the built-in schemas and registry,
// loaded once per process, and the schema type an input names in its apiVersion/kind.
#pragma once

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/registry.h"
#include "api/schema.h"

namespace k3c::fuzz {

inline const api::SchemaSet& schemas() {
  static const api::SchemaSet set = [] {
    auto s = api::SchemaSet::builtin();
    if (!s.is_ok()) std::abort();  // the embedded schemas must load; not the input's fault
    return std::move(s).value();
  }();
  return set;
}

inline const api::ResourceRegistry& registry() {
  static const api::ResourceRegistry r = [] {
    auto s = api::ResourceRegistry::builtin();
    if (!s.is_ok()) std::abort();
    return std::move(s).value();
  }();
  return r;
}

// The group-version-kind a document names, when it names one as strings.
inline api::GroupVersionKind gvk_of(const nlohmann::json& doc) {
  api::GroupVersionKind gvk{"", "v1", "Pod"};
  if (!doc.is_object()) return gvk;
  auto api_version = doc.find("apiVersion");
  auto kind = doc.find("kind");
  if (api_version == doc.end() || kind == doc.end() || !api_version->is_string() ||
      !kind->is_string()) {
    return gvk;
  }
  const std::string& av = api_version->get_ref<const std::string&>();
  auto slash = av.find('/');
  if (slash == std::string::npos) {
    gvk = {"", av, kind->get<std::string>()};
  } else {
    gvk = {av.substr(0, slash), av.substr(slash + 1), kind->get<std::string>()};
  }
  return gvk;
}

// The schema of the document's kind; a Pod's when the kind has none, so that every input
// exercises a schema-driven path.
inline const api::MessageType* type_of(const nlohmann::json& doc) {
  if (const api::MessageType* t = schemas().kind(gvk_of(doc))) return t;
  return schemas().kind({"", "v1", "Pod"});
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace k3c::fuzz

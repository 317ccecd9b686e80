// Served-API snapshots (see served_api.h).
#include "roles/apiserver/served_api.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

std::string gv_path(const api::Resource& r) {
  return r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
}

// "stable.example.com" -> "com.example.stable": the Go-package-like prefix upstream gives
// the definitions of custom kinds.
std::string reversed_domain(const std::string& group) {
  std::string out;
  size_t end = group.size();
  for (size_t dot = group.rfind('.'); dot != std::string::npos; dot = group.rfind('.', dot - 1)) {
    out += group.substr(dot + 1, end - dot - 1) + ".";
    end = dot;
    if (dot == 0) break;
  }
  return out + group.substr(0, end);
}

}  // namespace

std::pair<std::string, json> openapi_schema_of(const CustomResource& cr) {
  const api::Resource& r = cr.resource;
  json schema = cr.schema.is_object() ? cr.schema : json{{"type", "object"}};
  schema["x-kubernetes-group-version-kind"] =
      json::array({{{"group", r.group}, {"version", r.version}, {"kind", r.kind}}});
  json& props = schema["properties"];
  if (!props.is_object()) props = json::object();
  props["apiVersion"] = {
      {"type", "string"},
      {"description",
       "APIVersion defines the versioned schema of this representation of an object. Servers "
       "should convert recognized schemas to the latest internal value, and may reject "
       "unrecognized values."}};
  props["kind"] = {{"type", "string"},
                   {"description",
                    "Kind is a string value representing the REST resource this object "
                    "represents. Servers may infer this from the endpoint the client submits "
                    "requests to. Cannot be updated. In CamelCase."}};
  props["metadata"] = {{"type", "object"},
                       {"description",
                        "Standard object's metadata. More info: "
                        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                        "api-conventions.md#metadata"}};
  return {reversed_domain(r.group) + "." + r.version + "." + r.kind, std::move(schema)};
}

ApiSnapshot::ApiSnapshot(std::shared_ptr<const api::ResourceRegistry> registry_in,
                         api::DiscoveryDocuments discovery_in,
                         std::shared_ptr<const api::SchemaSet> schemas,
                         const std::map<std::string, json>& custom_schemas,
                         std::vector<std::shared_ptr<const CustomResource>> custom_in)
    : registry(std::move(registry_in)),
      discovery(std::move(discovery_in)),
      openapi(*registry, std::move(schemas), custom_schemas),
      openapi_v2(*registry),
      custom(std::move(custom_in)) {}

std::shared_ptr<const CustomResource> ApiSnapshot::custom_resource_ptr(
    std::string_view group, std::string_view version, std::string_view plural) const {
  for (const auto& c : custom) {
    const api::Resource& r = c->resource;
    if (r.group == group && r.version == version && r.plural == plural) return c;
  }
  return nullptr;
}

const CustomResource* ApiSnapshot::custom_resource(std::string_view group, std::string_view version,
                                                   std::string_view plural) const {
  return custom_resource_ptr(group, version, plural).get();
}

Result<std::unique_ptr<ServedApi>> ServedApi::create(
    api::ResourceRegistry builtin, api::DiscoveryOptions options,
    std::shared_ptr<const api::SchemaSet> schemas) {
  std::unique_ptr<ServedApi> api(
      new ServedApi(std::move(builtin), std::move(options), std::move(schemas)));
  ASSIGN_OR_RETURN(auto snapshot, api->build({}));
  api->current_ = std::move(snapshot);
  return api;
}

std::shared_ptr<const ApiSnapshot> ServedApi::current() const {
  std::lock_guard lock(mu_);
  return current_;
}

Status ServedApi::serve(std::vector<std::shared_ptr<const CustomResource>> custom) {
  ASSIGN_OR_RETURN(auto snapshot, build(std::move(custom)));
  std::lock_guard lock(mu_);
  current_ = std::move(snapshot);
  return Status::ok();
}

Result<std::shared_ptr<const ApiSnapshot>> ServedApi::build(
    std::vector<std::shared_ptr<const CustomResource>> custom) const {
  std::vector<api::Resource> extra;
  std::map<std::string, json> schemas;
  for (const auto& c : custom) {
    extra.push_back(c->resource);
    auto [name, schema] = openapi_schema_of(*c);
    schemas[gv_path(c->resource)][name] = std::move(schema);
  }
  ASSIGN_OR_RETURN(api::ResourceRegistry registry, builtin_.with(extra));
  auto shared = std::make_shared<const api::ResourceRegistry>(std::move(registry));
  ASSIGN_OR_RETURN(api::DiscoveryDocuments discovery,
                   api::DiscoveryDocuments::build(*shared, options_));
  return std::make_shared<const ApiSnapshot>(shared, std::move(discovery), schemas_, schemas,
                                             std::move(custom));
}

}  // namespace k3c::apiserver

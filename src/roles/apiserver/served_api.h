// The API surface the server offers at one moment: the resource registry, its discovery and
// OpenAPI documents, and the custom resources (CRD versions) among the resources. CRDs come
// and go while the server runs, so the surface is an immutable snapshot swapped as a whole;
// a request reads one snapshot from start to end and keeps it alive while it runs.
//
// Thread-safety: current() from any thread; serve() from the CRD controller (one thread at a
// time). mu_ guards current_.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/discovery.h"
#include "api/registry.h"
#include "api/schema.h"
#include "roles/apiserver/custom_resource.h"
#include "roles/apiserver/openapi.h"

namespace k3c::apiserver {

struct ApiSnapshot {
  ApiSnapshot(std::shared_ptr<const api::ResourceRegistry> registry,
              api::DiscoveryDocuments discovery, std::shared_ptr<const api::SchemaSet> schemas,
              const std::map<std::string, nlohmann::json>& custom_schemas,
              std::vector<std::shared_ptr<const CustomResource>> custom);

  std::shared_ptr<const api::ResourceRegistry> registry;
  api::DiscoveryDocuments discovery;
  OpenApiV3 openapi;
  OpenApiV2 openapi_v2;
  std::vector<std::shared_ptr<const CustomResource>> custom;

  // The custom resource served as group/version/plural, or nullptr (built-ins too).
  const CustomResource* custom_resource(std::string_view group, std::string_view version,
                                        std::string_view plural) const;
  // The same as shared ownership (for what outlives a request, such as watch streams).
  std::shared_ptr<const CustomResource> custom_resource_ptr(std::string_view group,
                                                            std::string_view version,
                                                            std::string_view plural) const;
};

class ServedApi {
 public:
  // The built-in surface, with no custom resources.
  // `schemas` describe the built-in kinds (for /openapi/v3).
  static Result<std::unique_ptr<ServedApi>> create(api::ResourceRegistry builtin,
                                                   api::DiscoveryOptions options,
                                                   std::shared_ptr<const api::SchemaSet> schemas);

  std::shared_ptr<const ApiSnapshot> current() const;
  // Serves the built-ins plus exactly `custom` from now on. kAlreadyExists (and nothing
  // changes) when a custom resource collides with a served one.
  Status serve(std::vector<std::shared_ptr<const CustomResource>> custom);

 private:
  ServedApi(api::ResourceRegistry builtin, api::DiscoveryOptions options,
            std::shared_ptr<const api::SchemaSet> schemas)
      : builtin_(std::move(builtin)), options_(std::move(options)), schemas_(std::move(schemas)) {}
  Result<std::shared_ptr<const ApiSnapshot>> build(
      std::vector<std::shared_ptr<const CustomResource>> custom) const;

  const api::ResourceRegistry builtin_;
  const api::DiscoveryOptions options_;
  const std::shared_ptr<const api::SchemaSet> schemas_;
  mutable std::mutex mu_;
  std::shared_ptr<const ApiSnapshot> current_;
};

// The OpenAPI v3 schema of a custom resource's kind, named as upstream names it
// ("com.example.stable.v1.CronTab"), keyed by that name.
std::pair<std::string, nlohmann::json> openapi_schema_of(const CustomResource& cr);

}  // namespace k3c::apiserver

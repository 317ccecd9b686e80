// Discovery documents built from a ResourceRegistry, in the shapes a v1.32 kube-apiserver
// serves (shared/research/kubectl-wire.md §4):
//   aggregated  GET /api, /apis with Accept
//   ...;g=apidiscovery.k8s.io;v=v2[beta1];as=APIGroupDiscoveryList legacy      GET /api
//   (APIVersions), /apis (APIGroupList), /apis/<g> (APIGroup),
//               /api/v1 and /apis/<g>/<v> (APIResourceList, with "pods/log"-style entries)
//   version     GET /version
// All functions are pure. DiscoveryDocuments serializes everything once per registry
// snapshot; it is immutable afterwards and may be read from any thread.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/registry.h"
#include "core/status.h"

namespace k3c::api {

// The aggregated formats. kubectl only takes a body as aggregated when the response
// Content-Type is exactly the matching string below; otherwise it parses it as legacy.
enum class AggregatedVersion { kV2, kV2Beta1 };
inline constexpr std::string_view kAggregatedV2ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
inline constexpr std::string_view kAggregatedV2Beta1ContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
// Legacy discovery documents and /version.
inline constexpr std::string_view kJsonContentType = "application/json";

std::string_view content_type_of(AggregatedVersion version);

// The aggregated format a request for /api or /apis asks for, from its Accept header, or
// nullopt for the legacy format. Media ranges are taken in the client's order (q values
// are not weighed); plain JSON listed before any aggregated type means legacy.
std::optional<AggregatedVersion> negotiate_aggregated_discovery(std::string_view accept);

enum class DiscoveryRoot {
  kApi,   // /api: the core group only
  kApis,  // /apis: every named group
};

// APIGroupDiscoveryList for /api or /apis: groups in registry order, versions preferred
// first, resources and subresources sorted by name, freshness "Current".
nlohmann::json aggregated_discovery(const ResourceRegistry& registry, DiscoveryRoot root,
                                    AggregatedVersion version);

// Legacy /api: APIVersions. `server_address` ("host:port") is what clients are told to use
// (serverAddressByClientCIDRs, clientCIDR 0.0.0.0/0).
nlohmann::json legacy_api_versions(const ResourceRegistry& registry,
                                   std::string_view server_address);
// Legacy /apis: APIGroupList with every named group's versions and preferred version.
nlohmann::json legacy_group_list(const ResourceRegistry& registry);
// Legacy /apis/<group>: APIGroup; nullopt for an unknown group.
std::optional<nlohmann::json> legacy_group(const ResourceRegistry& registry,
                                           std::string_view group);
// Legacy /api/v1 or /apis/<group>/<version>: APIResourceList; nullopt when not served.
std::optional<nlohmann::json> legacy_resource_list(const ResourceRegistry& registry,
                                                   std::string_view group,
                                                   std::string_view version);

// What /version reports. gitVersion carries the Kubernetes level served and k3c's own
// version as build metadata ("v1.32.0+k3c0.1.0"); major and minor are taken from it.
struct VersionInfo {
  std::string git_version;
  std::string git_commit;
  std::string git_tree_state = "clean";
  std::string build_date;  // RFC 3339, UTC ("2026-11-29T12:00:00Z")
  // The field is Go-specific; k3c reports honestly that it has no Go toolchain.
  std::string go_version = "n/a (C++)";
  std::string compiler;  // e.g. "gcc 12.2.0"
  std::string platform = "linux/amd64";
};

// The /version document; kInvalid when git_version is not "v<major>.<minor>.<patch>...".
Result<nlohmann::json> version_document(const VersionInfo& info);

struct DiscoveryOptions {
  std::string server_address;  // for legacy /api, see legacy_api_versions()
  VersionInfo version;
};

// Every discovery document of one registry snapshot, serialized once, ready to serve.
class DiscoveryDocuments {
 public:
  static Result<DiscoveryDocuments> build(const ResourceRegistry& registry,
                                          const DiscoveryOptions& options);

  const std::string& aggregated(DiscoveryRoot root, AggregatedVersion version) const;
  const std::string& api_versions() const { return api_versions_; }  // legacy /api
  const std::string& group_list() const { return group_list_; }      // legacy /apis
  // Legacy /apis/<group>; nullptr for an unknown group.
  const std::string* group(std::string_view name) const;
  // Legacy /api/v1 or /apis/<group>/<version>; nullptr when not served.
  const std::string* resource_list(std::string_view group, std::string_view version) const;
  const std::string& version() const { return version_; }  // /version

 private:
  DiscoveryDocuments() = default;

  std::string api_v2_, apis_v2_, api_v2beta1_, apis_v2beta1_;
  std::string api_versions_, group_list_, version_;
  std::map<std::string, std::string, std::less<>> groups_;          // name -> APIGroup
  std::map<std::string, std::string, std::less<>> resource_lists_;  // "apps/v1" -> list
};

}  // namespace k3c::api

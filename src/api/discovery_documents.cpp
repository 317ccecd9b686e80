// Serving side of discovery: Accept-header negotiation, the /version document, and
// DiscoveryDocuments, which renders every document of a registry snapshot to bytes once.
#include <nlohmann/json.hpp>

#include "api/discovery.h"
#include "core/text.h"

namespace k3c::api {
namespace {

using nlohmann::json;

// Splits `s` at each `sep` and calls `f` with every trimmed piece until it returns true.
template <typename F>
bool for_each_piece(std::string_view s, char sep, F&& f) {
  while (true) {
    const size_t at = s.find(sep);
    if (f(trim_blanks(s.substr(0, at)))) return true;
    if (at == std::string_view::npos) return false;
    s.remove_prefix(at + 1);
  }
}

// Never throws: invalid UTF-8 (impossible from validated names, but cheap to rule out) is
// replaced rather than reported by exception.
std::string serialize(const json& doc) {
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

// "v1.32.0+k3c1" -> {"1", "32"}.
std::optional<std::pair<std::string, std::string>> major_minor(std::string_view git_version) {
  if (git_version.size() < 2 || git_version[0] != 'v') return std::nullopt;
  git_version.remove_prefix(1);
  const size_t dot1 = git_version.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : git_version.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return std::nullopt;
  const std::string_view major = git_version.substr(0, dot1);
  const std::string_view minor = git_version.substr(dot1 + 1, dot2 - dot1 - 1);
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(major) || !digits(minor)) return std::nullopt;
  return std::make_pair(std::string(major), std::string(minor));
}

}  // namespace

std::optional<AggregatedVersion> negotiate_aggregated_discovery(std::string_view accept) {
  std::optional<AggregatedVersion> chosen;
  for_each_piece(accept, ',', [&](std::string_view range) {
    std::string_view type, group, version, as;
    bool first = true;
    for_each_piece(range, ';', [&](std::string_view part) {
      if (first) {
        type = part;
        first = false;
      } else if (const size_t eq = part.find('='); eq != std::string_view::npos) {
        const std::string_view key = trim_blanks(part.substr(0, eq));
        const std::string_view value = trim_blanks(part.substr(eq + 1));
        if (key == "g") group = value;
        if (key == "v") version = value;
        if (key == "as") as = value;
      }
      return false;
    });
    // Only JSON is served; a protobuf or other range is skipped.
    if (type != "application/json" && type != "*/*" && type != "application/*") return false;
    if (group.empty() && version.empty() && as.empty()) return true;  // plain JSON: legacy
    if (group != "apidiscovery.k8s.io" || as != "APIGroupDiscoveryList") return false;
    if (version == "v2") chosen = AggregatedVersion::kV2;
    if (version == "v2beta1") chosen = AggregatedVersion::kV2Beta1;
    return chosen.has_value();
  });
  return chosen;
}

Result<json> version_document(const VersionInfo& info) {
  const auto numbers = major_minor(info.git_version);
  if (!numbers) {
    return error(Code::kInvalid,
                 "git version \"" + info.git_version + "\" is not v<major>.<minor>.<patch>[...]");
  }
  return json{{"major", numbers->first},
              {"minor", numbers->second},
              {"gitVersion", info.git_version},
              {"gitCommit", info.git_commit},
              {"gitTreeState", info.git_tree_state},
              {"buildDate", info.build_date},
              {"goVersion", info.go_version},
              {"compiler", info.compiler},
              {"platform", info.platform}};
}

Result<DiscoveryDocuments> DiscoveryDocuments::build(const ResourceRegistry& registry,
                                                     const DiscoveryOptions& options) {
  ASSIGN_OR_RETURN(const json version, version_document(options.version));
  DiscoveryDocuments docs;
  docs.version_ = serialize(version);
  using enum AggregatedVersion;
  using enum DiscoveryRoot;
  docs.api_v2_ = serialize(aggregated_discovery(registry, kApi, kV2));
  docs.apis_v2_ = serialize(aggregated_discovery(registry, kApis, kV2));
  docs.api_v2beta1_ = serialize(aggregated_discovery(registry, kApi, kV2Beta1));
  docs.apis_v2beta1_ = serialize(aggregated_discovery(registry, kApis, kV2Beta1));
  docs.api_versions_ = serialize(legacy_api_versions(registry, options.server_address));
  docs.group_list_ = serialize(legacy_group_list(registry));
  for (const ApiGroup& group : registry.groups()) {
    if (auto doc = legacy_group(registry, group.name)) docs.groups_[group.name] = serialize(*doc);
    for (const std::string& v : group.versions) {
      if (auto doc = legacy_resource_list(registry, group.name, v)) {
        docs.resource_lists_[group_version_string(group.name, v)] = serialize(*doc);
      }
    }
  }
  return docs;
}

const std::string& DiscoveryDocuments::aggregated(DiscoveryRoot root,
                                                  AggregatedVersion version) const {
  if (root == DiscoveryRoot::kApi)
    return version == AggregatedVersion::kV2 ? api_v2_ : api_v2beta1_;
  return version == AggregatedVersion::kV2 ? apis_v2_ : apis_v2beta1_;
}

const std::string* DiscoveryDocuments::group(std::string_view name) const {
  const auto it = groups_.find(name);
  return it == groups_.end() ? nullptr : &it->second;
}

const std::string* DiscoveryDocuments::resource_list(std::string_view group,
                                                     std::string_view version) const {
  const auto it = resource_lists_.find(group_version_string(group, version));
  return it == resource_lists_.end() ? nullptr : &it->second;
}

}  // namespace k3c::api

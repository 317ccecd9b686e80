// New registry snapshots with resources added or removed (CRDs come and go), and the
// Kubernetes version priority that orders a CRD group's versions.
#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "api/registry.h"

namespace k3c::api {
namespace {

struct ParsedVersion {
  int stability = 0;  // 2 GA, 1 beta, 0 alpha
  int major = 0;
  int minor = 0;
};

bool parse_number(std::string_view s, int& out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// "v<major>", "v<major>beta<minor>" or "v<major>alpha<minor>"; nullopt for anything else.
std::optional<ParsedVersion> parse_version(std::string_view v) {
  if (v.size() < 2 || v[0] != 'v') return std::nullopt;
  v.remove_prefix(1);
  ParsedVersion p;
  const size_t letters = v.find_first_not_of("0123456789");
  if (!parse_number(v.substr(0, letters), p.major)) return std::nullopt;
  if (letters == std::string_view::npos) {
    p.stability = 2;
    return p;
  }
  std::string_view rest = v.substr(letters);
  if (rest.rfind("beta", 0) == 0) {
    p.stability = 1;
    rest.remove_prefix(4);
  } else if (rest.rfind("alpha", 0) == 0) {
    p.stability = 0;
    rest.remove_prefix(5);
  } else {
    return std::nullopt;
  }
  if (!parse_number(rest, p.minor)) return std::nullopt;
  return p;
}

}  // namespace

bool version_priority_less(std::string_view a, std::string_view b) {
  const auto pa = parse_version(a);
  const auto pb = parse_version(b);
  if (pa && pb) {
    if (pa->stability != pb->stability) return pa->stability > pb->stability;
    if (pa->major != pb->major) return pa->major > pb->major;
    return pa->minor > pb->minor;
  }
  if (pa || pb) return pa.has_value();  // Kubernetes-style versions before other names
  return a < b;
}

Result<ResourceRegistry> ResourceRegistry::with(const std::vector<Resource>& extra) const {
  std::vector<ApiGroup> groups = groups_;
  std::vector<Resource> resources = resources_;
  for (const Resource& r : extra) {
    if (find(r.group, r.version, r.plural) != nullptr) {
      return error(Code::kAlreadyExists,
                   "resource " + r.group_version() + " " + r.plural + " is already served");
    }
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const ApiGroup& g) { return g.name == r.group; });
    if (group == groups.end()) {
      groups.push_back(ApiGroup{r.group, {r.version}});
    } else if (std::find(group->versions.begin(), group->versions.end(), r.version) ==
               group->versions.end()) {
      auto& versions = group->versions;
      const auto at = std::find_if(versions.begin(), versions.end(), [&](const std::string& v) {
        return version_priority_less(r.version, v);
      });
      versions.insert(at, r.version);
    }
    resources.push_back(r);
  }
  // Upstream gives every CRD group the same priority, below the built-in groups; equal
  // priorities are ordered by name.
  std::sort(groups.begin() + static_cast<std::ptrdiff_t>(fixed_groups_), groups.end(),
            [](const ApiGroup& a, const ApiGroup& b) { return a.name < b.name; });
  return make(std::move(groups), std::move(resources), fixed_groups_);
}

Result<ResourceRegistry> ResourceRegistry::without(std::string_view group,
                                                   std::string_view plural) const {
  std::vector<Resource> kept;
  kept.reserve(resources_.size());
  for (const Resource& r : resources_) {
    if (r.group != group || r.plural != plural) kept.push_back(r);
  }
  if (kept.size() == resources_.size()) {
    return error(Code::kNotFound,
                 "resource " + std::string(plural) + "." + std::string(group) + " is not served");
  }
  std::vector<ApiGroup> groups;
  size_t fixed = fixed_groups_;
  for (size_t i = 0; i < groups_.size(); ++i) {
    ApiGroup g{groups_[i].name, {}};
    for (const std::string& v : groups_[i].versions) {
      const bool used = std::any_of(kept.begin(), kept.end(), [&](const Resource& r) {
        return r.group == g.name && r.version == v;
      });
      if (used) g.versions.push_back(v);
    }
    if (!g.versions.empty()) {
      groups.push_back(std::move(g));
    } else if (i < fixed_groups_) {
      --fixed;
    }
  }
  return make(std::move(groups), std::move(kept), fixed);
}

}  // namespace k3c::api

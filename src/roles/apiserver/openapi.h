// /openapi/v3: the root index and one document per group-version. Today each GV document
// declares, for every kind, the PATCH operation with its fieldValidation parameter, which is
// what kubectl's apply/create/replace/edit need to leave validation to the server
// (kubectl-wire.md §5). Full component schemas (for `kubectl explain`) come with the
// project's schema descriptions (DESIGN.md decision 2); until then explain fails clearly.
#pragma once

#include <map>
#include <string>

#include "api/registry.h"

namespace k3c::apiserver {

class OpenApiV3 {
 public:
  explicit OpenApiV3(const api::ResourceRegistry& registry);
  const std::string& root() const { return root_; }
  // "api/v1" or "apis/apps/v1"; nullptr when not served.
  const std::string* group_version(const std::string& path) const;

 private:
  std::string root_;
  std::map<std::string, std::string> documents_;
};

}  // namespace k3c::apiserver

// Metadata changes as merge patches (see metadata_writes.h).
#include "roles/controllers/common/metadata_writes.h"

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

Result<json> patch_metadata(client::Client& client, const client::ResourceId& resource,
                            const json& cached, json changes) {
  changes["resourceVersion"] = meta_str(cached, "resourceVersion");
  return client::patch(client, resource, namespace_of(cached), name_of(cached),
                       "application/merge-patch+json", {{"metadata", std::move(changes)}});
}

json refs_without(const json& object, const std::string& owner_uid) {
  json kept = json::array();
  for (const auto& ref : owner_refs(object)) {
    if (ref.value("uid", "") != owner_uid) kept.push_back(ref);
  }
  return kept.empty() ? json(nullptr) : kept;
}

}  // namespace k3c::controllers

#include "roles/controllers/common/claim.h"

#include "api/object_selectors.h"
#include "roles/controllers/common/informer_set.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

Result<std::vector<client::ObjectPtr>> claim(client::Client& client, const ClaimTarget& target,
                                             const json& owner,
                                             const std::optional<LabelSelector>& selector,
                                             const client::Informer& from) {
  const std::string& uid = uid_of(owner);
  std::vector<client::ObjectPtr> candidates = controlled_by(from, owner);
  for (auto& orphan : orphans_in(from, namespace_of(owner)))
    candidates.push_back(std::move(orphan));
  std::vector<client::ObjectPtr> owned;
  for (auto& object : candidates) {
    const json* ref = controller_ref(*object);
    bool matches =
        selector && api::selects(*selector, *object) && (!target.filter || target.filter(*object));
    if (ref && ref_uid(*ref) == uid) {
      if (matches || being_deleted(owner)) {
        owned.push_back(std::move(object));
        continue;
      }
      auto written = client::update(client, target.resource, without_owner(*object, uid));
      if (!written.is_ok() && written.status().code() != Code::kNotFound &&
          written.status().code() != Code::kConflict)
        return written.status();
      continue;
    }
    if (ref || !matches || being_deleted(owner) || being_deleted(*object)) continue;
    json updated = *object;
    json refs = owner_refs(*object);
    refs.push_back(controller_ref_to(owner, target.owner_api_version, target.owner_kind));
    updated["metadata"]["ownerReferences"] = refs;
    auto written = client::update(client, target.resource, updated);
    if (written.is_ok()) {
      owned.push_back(std::make_shared<const json>(std::move(written.value())));
    } else if (written.status().code() != Code::kNotFound &&
               written.status().code() != Code::kConflict) {
      return written.status();
    }
  }
  return owned;
}

}  // namespace k3c::controllers

#include "roles/controllers/common/claim.h"

#include "api/object_selectors.h"
#include "roles/controllers/common/informer_set.h"
#include "roles/controllers/common/metadata_writes.h"
#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {
namespace {

// The resource of an owner that claims (the kinds whose controllers call claim()).
const client::ResourceId* owner_resource(const std::string& kind) {
  namespace r = client::resources;
  static const std::pair<const char*, const client::ResourceId*> kinds[] = {
      {"Deployment", &r::kDeployments},
      {"ReplicaSet", &r::kReplicaSets},
      {"StatefulSet", &r::kStatefulSets},
      {"DaemonSet", &r::kDaemonSets},
      {"Job", &r::kJobs},
      {"ReplicationController", &r::kReplicationControllers}};
  for (const auto& [name, resource] : kinds)
    if (kind == name) return resource;
  return nullptr;
}

// Upstream's RecheckDeletionTimestamp: before the first adoption, the owner is read from the
// API, not the cache. A cache that has not seen the owner's deletion yet would otherwise
// adopt what the garbage collector has just orphaned for it, and once the owner is gone the
// collector deletes those objects as dependents of a missing owner.
Status can_adopt(client::Client& client, const ClaimTarget& target, const json& owner) {
  const client::ResourceId* resource = owner_resource(target.owner_kind);
  if (!resource) return Status::ok();
  ASSIGN_OR_RETURN(json fresh, client::get(client, *resource, namespace_of(owner), name_of(owner)));
  if (uid_of(fresh) != uid_of(owner))
    return error(Code::kConflict, "original " + name_of(owner) + " is gone: got uid " +
                                      uid_of(fresh) + ", wanted " + uid_of(owner));
  if (being_deleted(fresh))
    return error(Code::kConflict, name_of(owner) + " has just been deleted");
  return Status::ok();
}

}  // namespace

Result<std::vector<client::Informer::Cached>> claim_cached(
    client::Client& client, const ClaimTarget& target, const json& owner,
    const std::optional<LabelSelector>& selector, const client::Informer& from) {
  using Cached = client::Informer::Cached;
  const std::string& uid = uid_of(owner);
  std::vector<Cached> candidates = cached_controlled_by(from, owner);
  for (auto& orphan : cached_orphans_in(from, namespace_of(owner)))
    candidates.push_back(std::move(orphan));
  std::vector<Cached> owned;
  bool rechecked = false, adoptable = false;
  for (auto& candidate : candidates) {
    struct Read {
      std::string_view controller;
      bool selected, deleting;
    };
    Read read = read_cached(candidate, [&](const auto& object) {
      return Read{controller_uid(object), selector && api::selects(*selector, object),
                  deletion_marked(object)};
    });
    client::ObjectPtr tree;  // made only when needed
    auto object = [&]() -> const json& {
      if (!tree) tree = client::Informer::tree_of(candidate);
      return *tree;
    };
    bool matches = read.selected && (!target.filter || target.filter(object()));
    if (!read.controller.empty() && read.controller == uid) {
      if (matches || being_deleted(owner)) {
        owned.push_back(std::move(candidate));
        continue;
      }
      auto written = patch_metadata(client, target.resource, object(),
                                    {{"ownerReferences", refs_without(object(), uid)}});
      if (!written.is_ok() && written.status().code() != Code::kNotFound &&
          written.status().code() != Code::kConflict)
        return written.status();
      continue;
    }
    if (!read.controller.empty() || !matches || being_deleted(owner) || read.deleting) continue;
    if (!rechecked) {
      Status fresh = can_adopt(client, target, owner);
      rechecked = true;
      adoptable = fresh.is_ok();
      if (!fresh.is_ok() && fresh.code() != Code::kConflict && fresh.code() != Code::kNotFound)
        return fresh;
    }
    if (!adoptable) continue;  // the owner is going: adopt nothing, keep what it controls
    json refs = owner_refs(object());
    refs.push_back(controller_ref_to(owner, target.owner_api_version, target.owner_kind));
    auto written = patch_metadata(client, target.resource, object(), {{"ownerReferences", refs}});
    if (written.is_ok()) {
      owned.push_back({std::make_shared<const json>(std::move(written.value())), nullptr});
    } else if (written.status().code() != Code::kNotFound &&
               written.status().code() != Code::kConflict) {
      return written.status();
    }
  }
  return owned;
}

Result<std::vector<client::ObjectPtr>> claim(client::Client& client, const ClaimTarget& target,
                                             const json& owner,
                                             const std::optional<LabelSelector>& selector,
                                             const client::Informer& from) {
  ASSIGN_OR_RETURN(auto owned, claim_cached(client, target, owner, selector, from));
  return from.trees_of(owned);
}

}  // namespace k3c::controllers

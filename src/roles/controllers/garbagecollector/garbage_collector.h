// The garbage collector (upstream's, reduced to the built-in kinds below; custom resources
// come later): dependents whose owners are all gone are deleted; some dangling owner
// references are removed; an owner deleted with propagationPolicy=Orphan loses its
// `orphan` finalizer once its dependents no longer point at it; an owner deleted with
// Foreground keeps its `foregroundDeletion` finalizer until the dependents that block it
// are gone. Runs after restarts too: what was orphaned while k3c was down is found by the
// informers' first list.
//
// An owner is absent only when the API says so (a GET by name answers NotFound or a
// different uid): a lagging cache never gets a live object's dependents deleted.
#pragma once

#include <mutex>
#include <unordered_map>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class GarbageCollector final : public Controller {
 public:
  explicit GarbageCollector(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

  struct Kind {
    client::ResourceId resource;
    std::string api_version;
    std::string kind;
  };
  static const std::vector<Kind>& kinds();

 private:
  enum class OwnerState { kPresent, kAbsent, kUnknown };
  OwnerState owner_state(const json& ref, const std::string& ns, client::ObjectPtr* cached);
  std::vector<std::pair<size_t, client::ObjectPtr>> dependents_of(const std::string& uid) const;
  Status orphan_dependents(const json& owner);
  Status delete_dependents(const json& owner, bool& blocked);
  Status remove_finalizer(size_t kind, const json& object, std::string_view finalizer);
  Status check_owners(size_t kind, const json& object);
  void observe(size_t kind, const client::ObjectPtr& object, bool deleted);

  ControllerContext& ctx_;
  std::vector<client::Informer*> informers_;  // parallel to kinds()
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> by_uid_;  // uid -> queue key
};

}  // namespace k3c::controllers

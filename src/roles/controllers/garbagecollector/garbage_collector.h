// The garbage collector (upstream's, over the stored built-in kinds that objects are commonly
// owned by or are owned as -- kinds() -- and every custom resource):
// dependents whose owners are all gone are deleted; some dangling owner references are
// removed; an owner deleted with propagationPolicy=Orphan loses its `orphan` finalizer once
// its dependents no longer point at it; an owner deleted with Foreground keeps its
// `foregroundDeletion` finalizer until the dependents that block it are gone. Runs after
// restarts too: what was orphaned while k3c was down is found by the informers' first list.
//
// Custom resources: the collector watches CustomResourceDefinitions and, for each one that is
// Established, starts an informer of its own on the storage version's resource (upstream's
// GC follows discovery the same way). Objects naming an owner of that kind are looked at
// again then: before it, such an owner was "unknown" and nothing was deleted for it.
//
// An owner is absent only when the API says so (a GET by name answers NotFound or a
// different uid): a lagging cache never gets a live object's dependents deleted.
//
// Threads: the informers' threads call observe() and track_crd(); workers call reconcile().
// The watched kinds only grow (an index is part of a queue key), under kinds_mu_.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class GarbageCollector final : public Controller {
 public:
  explicit GarbageCollector(ControllerContext& ctx);
  ~GarbageCollector() override;
  Status reconcile(const std::string& key) override;

  struct Kind {
    client::ResourceId resource;
    std::string api_version;
    std::string kind;
  };
  // The built-in kinds, always watched.
  static const std::vector<Kind>& kinds();

 private:
  // A watched kind and its informer: a shared one for a built-in kind, the collector's own
  // (`owned`) for a custom resource.
  struct Watched {
    Kind kind;
    client::Informer* informer = nullptr;
    std::unique_ptr<client::Informer> owned;
  };
  enum class OwnerState { kPresent, kAbsent, kUnknown };

  const Watched* watched(size_t index) const;
  std::vector<const Watched*> all_watched() const;
  // The index of the watched kind with this API group and kind, or nullopt.
  std::optional<size_t> find_kind(const std::string& group, const std::string& kind) const;
  void watch_kind(size_t index, client::Informer& informer);
  void track_crd(const json& crd);
  void requeue_dependents_of_kind(const Kind& kind);

  OwnerState owner_state(const json& ref, const std::string& ns, client::ObjectPtr* cached);
  std::vector<std::pair<size_t, client::ObjectPtr>> dependents_of(const std::string& uid) const;
  Status orphan_dependents(const json& owner);
  Status delete_dependents(const json& owner, bool& blocked);
  Status remove_finalizer(size_t kind, const json& object, std::string_view finalizer);
  Status check_owners(size_t kind, const json& object);
  // `old`: the object as last seen, on an update (else null).
  void observe(size_t kind, const client::ObjectPtr& old, const client::ObjectPtr& object,
               bool deleted);

  ControllerContext& ctx_;
  mutable std::mutex kinds_mu_;
  std::vector<std::unique_ptr<Watched>> watched_;  // guarded by kinds_mu_; only appended
  std::map<std::string, size_t> custom_;           // group/plural -> index; kinds_mu_
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::string> by_uid_;  // uid -> queue key
};

}  // namespace k3c::controllers

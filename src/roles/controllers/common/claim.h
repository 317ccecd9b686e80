// Ownership as upstream's ControllerRefManager: an owner claims the objects its selector
// matches. Objects it controls that stopped matching are released (our reference removed);
// matching orphans are adopted (a controller reference added) unless owner or object is
// being deleted. ReplicaSets claim pods, Deployments claim ReplicaSets, StatefulSets and
// DaemonSets claim pods and ControllerRevisions.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "client/client.h"
#include "client/informer.h"
#include "core/selector.h"

namespace k3c::controllers {

struct ClaimTarget {
  const client::ResourceId& resource;  // of the claimed objects
  std::string owner_api_version;
  std::string owner_kind;
  // A further condition besides the selector (a StatefulSet claims only pods named after it).
  std::function<bool(const nlohmann::json&)> filter = nullptr;
};

// `from`: the informer of the claimed kind. The candidates are the objects the owner
// controls and the orphans of its namespace (index_by_controller in informer_set.h makes
// finding them cheap; objects of other controllers are never claimed). Returns those the owner
// controls afterwards (adopted ones as the API returned them).
Result<std::vector<client::ObjectPtr>> claim(client::Client& client, const ClaimTarget& target,
                                             const nlohmann::json& owner,
                                             const std::optional<LabelSelector>& selector,
                                             const client::Informer& from);
// The same, returning the informer's cached form: no tree is made for what the owner already
// controls and still selects (a ReplicaSet of thousands of pods reads them in place).
Result<std::vector<client::Informer::Cached>> claim_cached(
    client::Client& client, const ClaimTarget& target, const nlohmann::json& owner,
    const std::optional<LabelSelector>& selector, const client::Informer& from);

}  // namespace k3c::controllers

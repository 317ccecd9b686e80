// The matching rules of the PersistentVolume binder (upstream's persistentvolume controller,
// without its I/O). Pure functions, unit-tested.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::controllers {

// The class of a claim or volume: spec.storageClassName, or the old beta annotation; "" for
// none.
std::string storage_class_of(const nlohmann::json& claim_or_volume);
// Whether the volume's claimRef names this claim (namespace and name, and the uid if set).
bool volume_bound_to(const nlohmann::json& volume, const nlohmann::json& claim);

// The volume for an unbound claim, as upstream's findMatchingVolume: one pre-bound to the
// claim (its claimRef names it) wins; otherwise the smallest Available, unclaimed volume, not
// being deleted, whose access modes include the claim's, whose volumeMode, class and labels
// (the claim's selector) fit, and whose capacity covers the request. nullptr when none.
const nlohmann::json* matching_volume(const nlohmann::json& claim,
                                      const std::vector<const nlohmann::json*>& volumes);

}  // namespace k3c::controllers

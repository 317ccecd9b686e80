// The two writes a kubelet makes to its pods, as upstream's status manager makes them, shared
// by the pod manager and the hollow nodes (roles/hollow): the status through pods/<name>/status
// as a JSON merge patch carrying the pod's uid (a pod deleted and created again under the same
// name is not written over), and the final deletion of a pod being deleted once nothing of it
// runs (gracePeriodSeconds 0 and a uid precondition).
#pragma once

#include <nlohmann/json.hpp>

#include "client/client.h"
#include "core/status.h"

namespace k3c::kubelet {

// Writes `status` over the pod's current one (top-level keys of the old status that `status`
// lacks are removed). kNotFound when the pod is gone (or has another uid) meanwhile.
Status patch_pod_status(client::Client& client, const nlohmann::json& pod,
                        const nlohmann::json& status);

// Deletes the pod with grace 0 and its uid as precondition. Gone already, or replaced by a
// pod of another uid: not an error.
Status confirm_pod_deletion(client::Client& client, const nlohmann::json& pod);

}  // namespace k3c::kubelet

// Deleting a pod for a reason of the cluster rather than of its owner (taint eviction, pod
// GC), as upstream: the pod first gets the DisruptionTarget condition so that its controller
// (a Job's podFailurePolicy, for one) can tell why it went.
#pragma once

#include <string>

#include "roles/controllers/common/context.h"

namespace k3c::controllers {

// `force`: the pod is also marked Failed (when not terminal yet) and deleted with grace period
// 0, for pods no kubelet will ever stop (their node is gone). NotFound counts as done.
Status delete_disrupted_pod(ControllerContext& ctx, const json& pod, const std::string& reason,
                            const std::string& message, bool force);

}  // namespace k3c::controllers

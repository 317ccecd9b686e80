// The status a hollow node reports for a pod bound to it: what the real kubelet's status code
// (kubelet/pods/pod_status.h) makes of a runtime in which the pod's sandbox is up with
// `pod_ip` and every container has run since `started` (init containers exited 0, app
// containers running). So phase Running, Ready, containerStatuses running/ready/started with
// restartCount 0, fake but well-formed containerID (k3c://<64 hex>) and imageID
// (sha256:<64 hex>), hostIP, podIP, startTime and the kubelet's conditions come out of one
// piece of code, the kubelet's. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "roles/kubelet/pods/node_facts.h"
#include "roles/kubelet/pods/pod_runtime_state.h"

namespace k3c::hollow {

// The runtime a hollow node pretends to have for `pod`.
kubelet::PodRuntimeState simulated_runtime(const nlohmann::json& pod, const std::string& pod_ip,
                                           runtime::WallTime started);

nlohmann::json hollow_pod_status(const nlohmann::json& pod, const std::string& pod_ip,
                                 runtime::WallTime started, const kubelet::NodeFacts& node,
                                 runtime::WallTime now);

// 64 lowercase hex digits derived from `seed` (stable across runs), for fake ids.
std::string fake_digest(const std::string& seed);

}  // namespace k3c::hollow

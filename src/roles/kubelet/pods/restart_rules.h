// When a container is (re)started, as upstream's kubelet decides it
// (kubecontainer.ShouldContainerBeRestarted): never once the pod is being deleted; a
// container that never ran, or is only created or in an unknown state, is started; a
// running one is left alone; an exited one restarts unless the pod's restartPolicy is Never,
// or OnFailure and it exited 0. A restartable ("sidecar") init container -- an init container
// with restartPolicy Always -- restarts whatever the pod's policy.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

// spec.restartPolicy, "Always" when unset.
std::string pod_restart_policy(const nlohmann::json& pod);
bool is_restartable_init_container(const nlohmann::json& container);
bool pod_is_deleting(const nlohmann::json& pod);

// `latest`: the container's newest instance (null when it never ran).
bool should_restart_container(const nlohmann::json& pod, const nlohmann::json& container,
                              const runtime::ContainerStatus* latest);

}  // namespace k3c::kubelet

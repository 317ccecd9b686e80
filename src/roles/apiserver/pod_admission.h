// The small mutating admission plugins, as pure functions over the objects they consult:
//   - Priority: a pod's priorityClassName resolves to spec.priority and
//     spec.preemptionPolicy (the globalDefault class, or priority 0, when none is named);
//     only one PriorityClass may be the global default;
//   - DefaultTolerationSeconds: pods tolerate node.kubernetes.io/not-ready and
//     node.kubernetes.io/unreachable (NoExecute) for 300 s unless they say otherwise;
//   - DefaultStorageClass: a claim that names no class gets the default StorageClass (the
//     newest of those annotated storageclass.kubernetes.io/is-default-class=true).
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::apiserver {

// The built-in PriorityClasses the apiserver creates at start.
std::vector<nlohmann::json> system_priority_classes();

// On pod create: sets priority and preemptionPolicy from `classes` (PriorityClass objects).
// Returns the reason a pod is refused ("no PriorityClass with name x was found"), or "".
std::string admit_pod_priority(nlohmann::json& pod, const std::vector<nlohmann::json>& classes);
// On pod update: a body without priority or preemptionPolicy keeps the stored ones.
void keep_pod_priority(nlohmann::json& pod, const nlohmann::json& old);
// On PriorityClass create and update: the reason it is refused (a second global default), or "".
std::string check_priority_class(const nlohmann::json& priority_class,
                                 const std::vector<nlohmann::json>& classes);

// On pod create.
void default_toleration_seconds(nlohmann::json& pod);

// On PVC create: sets spec.storageClassName to the default class, if any.
void default_storage_class(nlohmann::json& claim,
                           const std::vector<nlohmann::json>& storage_classes);

}  // namespace k3c::apiserver

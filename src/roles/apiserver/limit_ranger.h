// The LimitRanger admission plugin, as pure functions over the namespace's LimitRanges:
//   - on pod create, each container and init container without a request or limit gets the
//     LimitRange's defaultRequest / default (Container items), and the pod is annotated
//     kubernetes.io/limit-ranger: "LimitRanger plugin set: cpu request for container web";
//   - on pod create and on PVC create and update, the min, max and maxLimitRequestRatio of
//     the Container, Pod and PersistentVolumeClaim items are enforced, with upstream's
//     messages ("maximum cpu usage per Container is 1, but limit is 2.").
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::apiserver {

// Applies the defaults of `ranges` (LimitRange objects, in list order) to a pod.
void limit_range_defaults(nlohmann::json& pod, const std::vector<nlohmann::json>& ranges);

// What the first LimitRange that refuses the object finds wrong, joined as upstream's
// aggregated error ("a" or "[a, b]"); empty when every range admits it. `kind` is "Pod" or
// "PersistentVolumeClaim"; other kinds are always admitted.
std::string limit_range_violations(const std::string& kind, const nlohmann::json& object,
                                   const std::vector<nlohmann::json>& ranges);

}  // namespace k3c::apiserver

// Resource lists as upstream's ResourceList ({"cpu": "500m", "memory": "1Gi"}) for the code
// that adds and compares them (LimitRanger, ResourceQuota admission and controller), and a pod's
// effective requests and limits as upstream's resource helpers sum them.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "api/quantity.h"

namespace k3c::api {

// Sorted by resource name, as upstream's messages print them.
using ResourceList = std::map<std::string, api::Quantity, std::less<>>;

// The quantities of a JSON map; values that do not parse are left out (validation refuses
// them before admission runs).
ResourceList resource_list(const nlohmann::json& map);
nlohmann::json to_json(const ResourceList& list);
// "cpu=1,pods=2": upstream's prettyPrint of a ResourceList.
std::string pretty(const ResourceList& list);

// Adds `more` into `into`, per resource.
void add_into(ResourceList& into, const ResourceList& more);
// Raises each resource of `into` to the one in `other` where that is larger.
void max_into(ResourceList& into, const ResourceList& other);

// A pod's requests ("requests") or limits ("limits"): the containers summed, with the
// sidecars (init containers with restartPolicy Always) running beside them, or the largest
// init container if that is more; plus the pod's overhead.
ResourceList pod_resources(const nlohmann::json& pod_spec, const char* which);

}  // namespace k3c::api

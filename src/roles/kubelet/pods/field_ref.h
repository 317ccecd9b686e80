// The downward API values a container can read (env valueFrom.fieldRef and
// valueFrom.resourceFieldRef; later the downwardAPI volume), with upstream's formats:
// metadata.labels['k'] is the value or "" when absent, status.podIPs and status.hostIPs are
// comma-separated, a CPU amount is rounded up to whole divisor units ("1" for 250m with the
// default divisor 1, "250" with divisor 1m), a container without a limit reads the node's
// allocatable amount.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "roles/kubelet/pods/node_facts.h"

namespace k3c::kubelet {

// kInvalid "unsupported fieldPath: <path>" for a path the downward API does not offer.
Result<std::string> pod_field_value(const nlohmann::json& pod, std::string_view field_path,
                                    const std::vector<std::string>& pod_ips, const NodeFacts& node);

// `selector` is a ResourceFieldSelector ({containerName?, resource, divisor?}); `container`
// the container asking (used when containerName is empty).
Result<std::string> container_resource_value(const nlohmann::json& pod,
                                             const nlohmann::json& container,
                                             const nlohmann::json& selector, const NodeFacts& node);

}  // namespace k3c::kubelet

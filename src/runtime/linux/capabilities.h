// Linux capability names and the set a container gets: containerd's default set, privileged
// (every capability), then the pod's add/drop lists with containerd's order of application.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime {

// "CAP_CHOWN" -> 0 ...; accepts "chown", "CHOWN" and "CAP_CHOWN". nullopt when unknown.
std::optional<int> capability_number(std::string_view name);
// Every capability this table knows, "CAP_" spelled, in number order.
const std::vector<std::string>& all_capabilities();
// The 14 capabilities a non-privileged container gets by default (containerd/Docker set).
const std::vector<std::string>& default_capabilities();

// The capabilities the container keeps (bounding = permitted = effective), "CAP_" spelled, in
// number order. Order of application as containerd: privileged or add ALL -> every
// capability; drop ALL -> none; then the named adds, then the named drops. Every capability
// kept is {"ALL"}: the shim keeps those k3c has. kInvalid names an unknown capability.
Result<std::vector<std::string>> container_capabilities(const SecurityConfig& security);

}  // namespace k3c::runtime

// A terminated container's message, as upstream's kubelet reads it (kuberuntime
// getTerminationMessage / readLastStringFromContainerLogs): the file the container wrote at
// its terminationMessagePath (default /dev/termination-log; at most 4096 bytes), found on the
// host through the instance's mount of that path; with terminationMessagePolicy
// FallbackToLogsOnError, an empty file and a non-zero exit code, the end of its log instead
// (the last 80 lines, at most their last 2048 bytes). "" when there is none.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

std::string termination_message(const nlohmann::json& container,
                                const runtime::ContainerStatus& instance);

}  // namespace k3c::kubelet

// The argv a container runs, from its command/args and its image's entrypoint/cmd, with the
// rules upstream's runtimes apply (containerd's CRI plugin, Docker before it):
//   command set        -> command + args (the image's entrypoint and cmd are both ignored)
//   only args set      -> entrypoint + args
//   neither            -> entrypoint + cmd
// command and args have their $(VAR) references expanded against the container's declared
// environment first (expansion.h), as upstream's kubelet does.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace k3c::kubelet {

// kInvalid "no command specified" when the result would be empty (no command, no args, and
// an image without entrypoint and cmd).
Result<std::vector<std::string>> container_argv(const nlohmann::json& container,
                                                const std::vector<std::string>& image_entrypoint,
                                                const std::vector<std::string>& image_cmd,
                                                const std::map<std::string, std::string>& env);

}  // namespace k3c::kubelet

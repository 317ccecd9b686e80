// k3s's pass-through flags for the embedded components: `--kube-controller-manager-arg
// KEY=VALUE`, `--kube-scheduler-arg KEY=VALUE` and `--kubelet-arg KEY=VALUE`, KEY being the
// upstream component's flag name. Each value is parsed into the component's typed settings here, at
// start, so that a mistake is a clear error before anything runs and no string reaches the roles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "roles/controllers/controller_settings.h"
#include "roles/kubelet/kubelet_settings.h"
#include "roles/scheduler/scheduler_settings.h"

namespace k3c::cli {

// Applies one "KEY=VALUE" ("--KEY=VALUE" too; a boolean KEY alone means true). Unknown keys,
// upstream keys k3c does not act on and bad values are kInvalid, naming the key.
Status apply_controller_manager_arg(std::string_view arg,
                                    controllers::ControllerManagerSettings& settings);
Status apply_scheduler_arg(std::string_view arg, scheduler::SchedulerSettings& settings);
Status apply_kubelet_arg(std::string_view arg, kubelet::KubeletSettings& settings);

// The keys each component takes, for messages and docs.
std::vector<std::string> controller_manager_arg_keys();
std::vector<std::string> scheduler_arg_keys();
std::vector<std::string> kubelet_arg_keys();

}  // namespace k3c::cli

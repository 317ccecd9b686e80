// A pod's phase from its container statuses, with upstream's rules (kubelet getPhase):
//   - an ordinary init container that failed, with restartPolicy Never -> Failed;
//   - init containers still to run (and no app container ever started), or an app container
//     not yet started -> Pending;
//   - every app container started and one running -> Running;
//   - all stopped: Always -> Running (restarting); all exited 0 -> Succeeded; Never with a
//     failure -> Failed; OnFailure with a failure -> Running (restarting).
//   A terminal pod (being deleted, nothing running) is Succeeded or Failed whatever its
//   policy.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace k3c::kubelet {

std::string pod_phase(const nlohmann::json& pod, const nlohmann::json& init_statuses,
                      const nlohmann::json& statuses, bool pod_is_terminal);

// The entry of a containerStatuses-like array with that name; null when none.
const nlohmann::json* find_status(const nlohmann::json& statuses, const std::string& name);

// Some app container ran at some point (running, terminated, or waiting after a run).
bool any_app_container_started(const nlohmann::json& pod, const nlohmann::json& statuses);

}  // namespace k3c::kubelet

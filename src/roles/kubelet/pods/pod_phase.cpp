// Pod phase (see pod_phase.h).
#include "roles/kubelet/pods/pod_phase.h"

#include "roles/kubelet/pods/restart_rules.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

bool has(const json& status, const char* field, const char* state) {
  auto it = status.find(field);
  return it != status.end() && it->is_object() && it->contains(state);
}

int exit_code(const json& status, const char* field) {
  return status[field]["terminated"].value("exitCode", 0);
}

}  // namespace

bool any_app_container_started(const json& pod, const json& statuses) {
  for (const auto& c : pod["spec"].value("containers", json::array())) {
    const json* s = find_status(statuses, c.value("name", ""));
    if (!s) continue;
    if (has(*s, "state", "running") || has(*s, "state", "terminated") ||
        has(*s, "lastState", "terminated")) {
      return true;
    }
  }
  return false;
}

std::string pod_phase(const json& pod, const json& init_statuses, const json& statuses,
                      bool pod_is_terminal) {
  const json spec = pod.value("spec", json::object());
  int pending_init = 0, failed_init = 0;
  int unknown = 0, running = 0, waiting = 0, stopped = 0, succeeded = 0;
  for (const auto& c : spec.value("initContainers", json::array())) {
    const json* s = find_status(init_statuses, c.value("name", ""));
    if (is_restartable_init_container(c)) {
      if (!s) {
        ++unknown;
      } else if (has(*s, "state", "running")) {
        if (!s->value("started", false)) ++pending_init;
        ++running;
      } else if (has(*s, "state", "terminated")) {
        // A stopped sidecar does not count.
      } else if (has(*s, "state", "waiting") && !has(*s, "lastState", "terminated")) {
        ++pending_init;
        ++waiting;
      } else if (!has(*s, "state", "waiting")) {
        ++pending_init;
        ++unknown;
      }
      continue;
    }
    if (!s || has(*s, "state", "running")) {
      ++pending_init;
    } else if (has(*s, "state", "terminated")) {
      if (exit_code(*s, "state") != 0) ++failed_init;
    } else if (has(*s, "state", "waiting") && has(*s, "lastState", "terminated")) {
      if (exit_code(*s, "lastState") != 0) ++failed_init;
    } else {
      ++pending_init;
    }
  }
  for (const auto& c : spec.value("containers", json::array())) {
    const json* s = find_status(statuses, c.value("name", ""));
    if (!s) {
      ++unknown;
    } else if (has(*s, "state", "running")) {
      ++running;
    } else if (has(*s, "state", "terminated")) {
      ++stopped;
      if (exit_code(*s, "state") == 0) ++succeeded;
    } else if (has(*s, "state", "waiting")) {
      if (has(*s, "lastState", "terminated")) {
        ++stopped;
      } else {
        ++waiting;
      }
    } else {
      ++unknown;
    }
  }
  const std::string policy = pod_restart_policy(pod);
  if (failed_init > 0 && policy == "Never") return "Failed";
  if ((pending_init > 0 && !any_app_container_started(pod, statuses)) || waiting > 0) {
    return "Pending";
  }
  if (running > 0 && unknown == 0) return "Running";
  if (running == 0 && stopped > 0 && unknown == 0) {
    if (pod_is_terminal) return stopped == succeeded ? "Succeeded" : "Failed";
    if (policy == "Always") return "Running";
    if (stopped == succeeded) return "Succeeded";
    if (policy == "Never") return "Failed";
    return "Running";
  }
  return "Pending";
}

const json* find_status(const json& statuses, const std::string& name) {
  if (!statuses.is_array()) return nullptr;
  for (const auto& s : statuses) {
    if (s.value("name", "") == name) return &s;
  }
  return nullptr;
}

}  // namespace k3c::kubelet

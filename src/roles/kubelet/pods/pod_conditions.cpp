// Pod conditions (see pod_conditions.h).
#include "roles/kubelet/pods/pod_conditions.h"

#include <vector>

#include "core/go_format.h"
#include "roles/kubelet/pods/pod_phase.h"
#include "roles/kubelet/pods/restart_rules.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

std::string join_messages(const std::vector<std::string>& unknown, const char* what,
                          const std::vector<std::string>& bad) {
  std::string message;
  if (!unknown.empty()) message = "containers with unknown status: " + go_list(unknown);
  if (!bad.empty()) {
    if (!message.empty()) message += ", ";
    message += std::string("containers with ") + what + " status: " + go_list(bad);
  }
  return message;
}

}  // namespace

ConditionValue ready_to_start_containers_condition(bool sandbox_ready) {
  return {"PodReadyToStartContainers", sandbox_ready, "", ""};
}

ConditionValue initialized_condition(const json& pod, const json& init_statuses,
                                     const json& statuses, const std::string& phase) {
  const json inits = pod["spec"].value("initContainers", json::array());
  if (inits.empty()) return {"Initialized", true, "", ""};
  std::vector<std::string> unknown, incomplete;
  for (const auto& c : inits) {
    const std::string name = c.value("name", "");
    const json* s = find_status(init_statuses, name);
    if (!s) {
      unknown.push_back(name);
      continue;
    }
    const bool done =
        is_restartable_init_container(c) ? s->value("started", false) : s->value("ready", false);
    if (!done) incomplete.push_back(name);
  }
  if (phase == "Succeeded" && unknown.empty()) return {"Initialized", true, "PodCompleted", ""};
  // App containers have run: the pod was initialized before (sidecars may be restarting).
  if (any_app_container_started(pod, statuses)) return {"Initialized", true, "", ""};
  if (!unknown.empty() || !incomplete.empty()) {
    return {"Initialized", false, "ContainersNotInitialized",
            join_messages(unknown, "incomplete", incomplete)};
  }
  return {"Initialized", true, "", ""};
}

ConditionValue containers_ready_condition(const json& pod, const json& init_statuses,
                                          const json& statuses, const std::string& phase) {
  if (phase == "Failed") return {"ContainersReady", false, "PodFailed", ""};
  if (phase == "Succeeded") return {"ContainersReady", false, "PodCompleted", ""};
  std::vector<std::string> unknown, unready;
  auto check = [&](const json& c, const json& list) {
    const std::string name = c.value("name", "");
    const json* s = find_status(list, name);
    if (!s) {
      unknown.push_back(name);
    } else if (!s->value("ready", false)) {
      unready.push_back(name);
    }
  };
  for (const auto& c : pod["spec"].value("initContainers", json::array())) {
    if (is_restartable_init_container(c)) check(c, init_statuses);
  }
  for (const auto& c : pod["spec"].value("containers", json::array())) check(c, statuses);
  if (!unknown.empty() || !unready.empty()) {
    return {"ContainersReady", false, "ContainersNotReady",
            join_messages(unknown, "unready", unready)};
  }
  return {"ContainersReady", true, "", ""};
}

ConditionValue ready_condition(const json& pod, const ConditionValue& containers_ready,
                               const json& conditions) {
  if (!containers_ready.status) {
    return {"Ready", false, containers_ready.reason, containers_ready.message};
  }
  std::string message;
  for (const auto& gate : pod["spec"].value("readinessGates", json::array())) {
    const std::string type = gate.value("conditionType", "");
    const json* found = nullptr;
    if (conditions.is_array()) {
      for (const auto& c : conditions) {
        if (c.value("type", "") == type) found = &c;
      }
    }
    std::string problem;
    if (!found) {
      problem = "corresponding condition of pod readiness gate \"" + type + "\" does not exist.";
    } else if (found->value("status", "") != "True") {
      problem = "the status of pod readiness gate \"" + type + "\" is not \"True\", but " +
                found->value("status", "");
    }
    if (!problem.empty()) message += (message.empty() ? "" : ", ") + problem;
  }
  if (!message.empty()) return {"Ready", false, "ReadinessGatesNotReady", message};
  return {"Ready", true, "", ""};
}

void set_condition(json& conditions, const ConditionValue& value, const std::string& now) {
  if (!conditions.is_array()) conditions = json::array();
  json c = {{"type", value.type},
            {"status", value.status ? "True" : "False"},
            {"lastProbeTime", nullptr},
            {"lastTransitionTime", now}};
  if (!value.reason.empty()) c["reason"] = value.reason;
  if (!value.message.empty()) c["message"] = value.message;
  for (auto& existing : conditions) {
    if (existing.value("type", "") != value.type) continue;
    if (existing.value("status", "") == c["status"] && existing.contains("lastTransitionTime")) {
      c["lastTransitionTime"] = existing["lastTransitionTime"];
    }
    existing = std::move(c);
    return;
  }
  conditions.push_back(std::move(c));
}

}  // namespace k3c::kubelet

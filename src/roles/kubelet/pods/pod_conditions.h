// The pod conditions the kubelet owns, as upstream generates them (kubelet/status/generate.go):
// PodReadyToStartContainers (the sandbox is up), Initialized (every init container done),
// ContainersReady and Ready (every app container and sidecar ready; reasons
// ContainersNotReady / ContainersNotInitialized / PodCompleted / PodFailed with messages such
// as "containers with unready status: [web]"). Other conditions (PodScheduled,
// DisruptionTarget, readiness gates) belong to others and are kept.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace k3c::kubelet {

struct ConditionValue {
  std::string type;
  bool status = false;
  std::string reason;
  std::string message;
};

ConditionValue ready_to_start_containers_condition(bool sandbox_ready);
ConditionValue initialized_condition(const nlohmann::json& pod, const nlohmann::json& init_statuses,
                                     const nlohmann::json& statuses, const std::string& phase);
ConditionValue containers_ready_condition(const nlohmann::json& pod,
                                          const nlohmann::json& init_statuses,
                                          const nlohmann::json& statuses, const std::string& phase);
// Ready follows ContainersReady, then the pod's readiness gates.
ConditionValue ready_condition(const nlohmann::json& pod, const ConditionValue& containers_ready,
                               const nlohmann::json& conditions);

// Sets `value` in the conditions list `conditions`, keeping lastTransitionTime when the status
// did not change (and setting it to `now` when it did or the condition is new).
void set_condition(nlohmann::json& conditions, const ConditionValue& value, const std::string& now);

}  // namespace k3c::kubelet

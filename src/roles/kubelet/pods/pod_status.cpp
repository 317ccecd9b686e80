// The pod status (see pod_status.h).
#include "roles/kubelet/pods/pod_status.h"

#include "api/pod_qos.h"
#include "core/ids.h"
#include "roles/kubelet/pods/pod_conditions.h"
#include "roles/kubelet/pods/pod_phase.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

json ip_list(const std::vector<std::string>& ips) {
  json out = json::array();
  for (const auto& ip : ips) out.push_back({{"ip", ip}});
  return out;
}

bool kubelet_owned_condition(const std::string& type) {
  return type == "PodScheduled" || type == "Ready" || type == "Initialized" ||
         type == "ContainersReady" || type == "PodReadyToStartContainers";
}

bool terminal(const std::string& phase) { return phase == "Succeeded" || phase == "Failed"; }

}  // namespace

json generate_pod_status(const StatusInputs& in) {
  const json& pod = in.pod;
  const json old = pod.value("status", json::object());
  json s = old.is_object() ? old : json::object();
  const std::string now = rfc3339(in.now);

  const HealthByName no_probes;
  const HealthByName& health = in.health ? *in.health : no_probes;
  json init_statuses = api_container_statuses(pod, true, in.state, in.reasons, health);
  json statuses = api_container_statuses(pod, false, in.state, in.reasons, health);
  std::string phase = pod_phase(pod, init_statuses, statuses, in.pod_is_terminal);
  // A pod that is done here always ends in a terminal phase (it never ran at all: Failed).
  if (in.pod_is_terminal && !terminal(phase)) phase = "Failed";
  const std::string old_phase = old.value("phase", "");
  if (terminal(old_phase)) phase = old_phase;  // never leave a terminal phase
  s["phase"] = phase;

  if (!pod["spec"].value("initContainers", json::array()).empty()) {
    s["initContainerStatuses"] = init_statuses;
  } else {
    s.erase("initContainerStatuses");
  }
  s["containerStatuses"] = statuses;

  // Conditions of others first (in their order), then the kubelet's, as upstream orders them;
  // set_condition() keeps each one's lastTransitionTime from `old_conditions`.
  const json old_conditions = s.value("conditions", json::array());
  json conditions = json::array();
  for (const auto& c : old_conditions) {
    if (!kubelet_owned_condition(c.value("type", ""))) conditions.push_back(c);
  }
  auto add = [&](const ConditionValue& value) {
    json previous = old_conditions;
    set_condition(previous, value, now);
    for (const auto& c : previous) {
      if (c.value("type", "") == value.type) conditions.push_back(c);
    }
  };
  add(ready_to_start_containers_condition(in.state.sandbox_ready()));
  add(initialized_condition(pod, init_statuses, statuses, phase));
  const ConditionValue containers_ready =
      containers_ready_condition(pod, init_statuses, statuses, phase);
  add(ready_condition(pod, containers_ready, old_conditions));
  add(containers_ready);
  add({"PodScheduled", true, "", ""});
  s["conditions"] = conditions;

  if (!in.node.host_ips.empty()) {
    s["hostIP"] = in.node.host_ips.front();
    s["hostIPs"] = ip_list(in.node.host_ips);
  }
  std::vector<std::string> pod_ips;
  if (pod["spec"].value("hostNetwork", false)) {
    pod_ips = in.node.host_ips;
  } else if (const auto* sandbox = in.state.sandbox(); sandbox && !sandbox->ip.empty()) {
    pod_ips = {sandbox->ip};
  }
  // IPs once reported stay while the sandbox is gone (a completed pod keeps its IP).
  if (!pod_ips.empty()) {
    s["podIP"] = pod_ips.front();
    s["podIPs"] = ip_list(pod_ips);
  }
  if (!s.contains("startTime") || s["startTime"].is_null()) s["startTime"] = now;
  if (!s.contains("qosClass") || !s["qosClass"].is_string()) {
    s["qosClass"] = std::string(api::qos_class_name(api::qos_class(pod)));
  }
  return s;
}

}  // namespace k3c::kubelet

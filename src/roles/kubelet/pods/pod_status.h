// A pod's whole status as the kubelet reports it (upstream's generateAPIPodStatus plus the
// status manager's rules): phase, the kubelet's conditions (other conditions kept, PodScheduled
// added when missing), container statuses, hostIP(s), podIP(s), startTime and qosClass.
// Times only move when something changes: a condition's lastTransitionTime when its status
// flips, startTime once. A terminal phase (Succeeded, Failed) is never left.
// Fields the kubelet does not own (nominatedNodeName, resize, ...) are kept as they were.
#pragma once

#include <nlohmann/json.hpp>

#include "roles/kubelet/pods/container_statuses.h"
#include "roles/kubelet/pods/node_facts.h"
#include "roles/kubelet/pods/pod_runtime_state.h"

namespace k3c::kubelet {

struct StatusInputs {
  const nlohmann::json& pod;  // with the status last written
  const PodRuntimeState& state;
  const WaitingReasons& reasons;
  const NodeFacts& node;
  runtime::WallTime now;
  // The pod is done on this node: deleted (or terminal) and nothing of it runs any more.
  bool pod_is_terminal = false;
  const HealthByName* health = nullptr;  // what probes say; null = no probes
};

nlohmann::json generate_pod_status(const StatusInputs& in);

}  // namespace k3c::kubelet

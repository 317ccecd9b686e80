// Where a DaemonSet's pods belong, as upstream: a node runs the daemon pod when the pod's
// nodeSelector and required node affinity match it and the pod tolerates its NoSchedule and
// NoExecute taints, counting the tolerations upstream adds to every daemon pod (not-ready
// and unreachable NoExecute; disk-, memory-, pid-pressure and unschedulable NoSchedule;
// network-unavailable for host-network pods). A pod already there keeps running unless a
// NoExecute taint it does not tolerate appears. Daemon pods are pinned with a required node
// affinity term on the field metadata.name; the scheduler binds them.
// Pure functions over JSON (the scheduler's matching rules), unit-tested.
#pragma once

#include <string>

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

inline constexpr const char* kDaemonRevisionLabel = "controller-revision-hash";

// Adds the tolerations every daemon pod gets (those it already has stay as they are).
void add_daemon_tolerations(json& pod_spec);
// Pins the pod spec to `node`: its required node affinity becomes the one term
// matchFields metadata.name In [node] (other affinity kept).
void pin_to_node(json& pod_spec, const std::string& node);
// The node a daemon pod is for: spec.nodeName, else the pinned name ("" when neither).
std::string target_node(const json& pod);

struct Placement {
  bool should_run = false;               // a daemon pod belongs on the node
  bool should_continue_running = false;  // one already there may stay
};
Placement placement(const json& daemon_set, const json& node);

// The pod the DaemonSet makes for `node`, labelled with the template's revision `hash`.
json new_daemon_pod(const json& daemon_set, const std::string& node, const std::string& hash);

}  // namespace k3c::controllers

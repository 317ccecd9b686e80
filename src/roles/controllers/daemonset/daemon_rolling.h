// The arithmetic of a DaemonSet rolling update, as upstream's: per node at most one pod of
// the new template and one of an old one; without surge, old pods are deleted while fewer
// than maxUnavailable nodes are without an available pod (an old pod that is not available
// anyway is replaced at once); with maxSurge, a new pod starts next to the old one on up to
// maxSurge nodes and the old one goes once the new one is available. Pure, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

struct DaemonPodState {
  std::string name;
  bool available = false;
};

struct NodeDaemonPods {
  std::string node;
  bool consistent = true;  // no more than one new and one old pod (else manage fixes it)
  bool should_run = true;
  std::optional<DaemonPodState> new_pod, old_pod;
};

struct DaemonBounds {
  int64_t max_surge = 0;
  int64_t max_unavailable = 0;
};
// From spec.updateStrategy.rollingUpdate against the nodes that should run the pod (both
// percentages round up, as upstream); both zero allows one unavailable.
DaemonBounds daemon_bounds(const json& daemon_set, int64_t desired);
// Whether maxSurge allows a second pod on a node (upstream's AllowsSurge).
bool allows_surge(const json& daemon_set);

struct RollingPlan {
  std::vector<std::string> delete_pods;
  std::vector<std::string> create_on_nodes;
};
RollingPlan plan_rolling_update(const std::vector<NodeDaemonPods>& nodes, DaemonBounds bounds);

}  // namespace k3c::controllers

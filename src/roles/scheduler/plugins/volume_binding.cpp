// VolumeBinding as far as a snapshot carries it: every claim the pod mounts must exist; an
// unbound claim of an Immediate StorageClass must be bound first; a bound claim's
// PersistentVolume must be reachable from the node (its required node affinity). Unbound
// WaitForFirstConsumer claims pass: the volume is provisioned for the chosen node afterwards.
#include "roles/scheduler/framework.h"

namespace k3c::scheduler {

FilterStatus prefilter_volume_binding(CycleState& state) {
  bool unbound_immediate = false;
  for (const std::string& name : state.pod.pvc_names) {
    auto claim = state.snapshot.claims.find(state.pod.namespace_ + "/" + name);
    if (claim == state.snapshot.claims.end()) {
      return FilterStatus::fail(FilterCode::kUnresolvable, "VolumeBinding",
                                "persistentvolumeclaim \"" + name + "\" not found");
    }
    if (claim->second.volume_name.empty()) {
      if (!claim->second.wait_for_first_consumer) unbound_immediate = true;
      continue;
    }
    auto volume = state.snapshot.volume_node_affinity.find(claim->second.volume_name);
    if (volume == state.snapshot.volume_node_affinity.end()) {
      // A claim bound to a volume we do not know: every node fails, as upstream's
      // "bound to non-existent pv" does.
      state.volume_node_affinity.push_back(nullptr);
    } else if (volume->second) {
      state.volume_node_affinity.push_back(&*volume->second);
    }
  }
  if (unbound_immediate) {
    return FilterStatus::fail(FilterCode::kUnresolvable, "VolumeBinding",
                              "pod has unbound immediate PersistentVolumeClaims");
  }
  return FilterStatus::success();
}

FilterStatus filter_volume_binding(const CycleState& state, const NodeInfo& node) {
  for (const NodeSelector* affinity : state.volume_node_affinity) {
    if (!affinity) {
      return FilterStatus::fail(FilterCode::kUnresolvable, "VolumeBinding",
                                "node(s) unavailable due to one or more pvc(s) bound to "
                                "non-existent pv(s)");
    }
    if (!node_selector_matches(*affinity, node.node())) {
      return FilterStatus::fail(FilterCode::kUnresolvable, "VolumeBinding",
                                "node(s) had volume node affinity conflict");
    }
  }
  return FilterStatus::success();
}

}  // namespace k3c::scheduler

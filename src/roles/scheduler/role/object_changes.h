// Which informer events matter to the scheduler: whether a pod is one it should place, whether
// a pod or node change could make a waiting pod fit (upstream's isPodUpdated and
// nodeSchedulingPropertiesChange), and the PodScheduled=False status patch it writes.
// Pure functions over the objects' JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace k3c::scheduler {

// A pod waiting for this scheduler: spec.schedulerName names it (empty counts as
// default-scheduler), no spec.nodeName, not being deleted, not finished.
bool waits_for_scheduler(const nlohmann::json& pod, const std::string& scheduler_name);
// status.phase Succeeded or Failed.
bool pod_finished(const nlohmann::json& pod);
// More than status and bookkeeping (resourceVersion, managedFields, generation) changed.
bool pod_spec_changed(const nlohmann::json& old_pod, const nlohmann::json& new_pod);
// A change a scheduling decision reads: labels, taints, unschedulable, allocatable, or the
// Ready condition.
bool node_scheduling_changed(const nlohmann::json& old_node, const nlohmann::json& new_node);

// The strategic merge patch for pods/status that marks `pod` PodScheduled=False, reason
// Unschedulable, with `message` (and status.nominatedNodeName when `nominated_node` is set);
// nullopt when the pod already says exactly that. lastTransitionTime keeps its value when the
// condition was already False.
std::optional<nlohmann::json> unschedulable_patch(const nlohmann::json& pod,
                                                  const std::string& message,
                                                  const std::string& nominated_node,
                                                  const std::string& now);

}  // namespace k3c::scheduler

// A pod's quality-of-service class and its pod-level cgroup, as upstream computes them
// (pkg/apis/core/v1/helper/qos ComputePodQOS; pkg/kubelet/cm ResourceConfigForPod): the API
// server stores the class in status.qosClass on create, the kubelet places the pod's cgroup
// under the class's parent and sizes it from the summed container resources.
//
// Only cpu, memory and hugepages-* count for the class; other resources (ephemeral-storage,
// extended resources) are ignored. Pod-level spec.resources (alpha in 1.32, off by default)
// are not considered. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace k3c::api {

enum class QosClass { kGuaranteed, kBurstable, kBestEffort };

// "Guaranteed", "Burstable", "BestEffort".
std::string_view qos_class_name(QosClass qos);

// The class from the pod's containers and init containers: Guaranteed when every container
// sets cpu and memory limits and the summed requests equal the summed limits for every
// counted resource; BestEffort when no container requests or limits any (non-zero); else
// Burstable. Expects requests defaulted from limits, as the API server does before this runs.
QosClass compute_qos_class(const nlohmann::json& pod);
// status.qosClass when it holds a known class (it never changes after create), else computed.
QosClass qos_class(const nlohmann::json& pod);

// What the kubelet's pod cgroup gets.
struct PodCgroup {
  QosClass qos = QosClass::kBestEffort;
  std::string parent;  // "kubepods", "kubepods/burstable" or "kubepods/besteffort"
  std::string name;    // "pod<uid>"
  // The summed CPU requests (the shares' basis; 0 for BestEffort, which gets the least).
  int64_t cpu_request_milli = 0;
  // The summed CPU limits when every container sets one (always for Guaranteed); else 0.
  int64_t cpu_limit_milli = 0;
  // The summed memory limits when every container sets one; else 0 (no limit).
  int64_t memory_limit_bytes = 0;

  std::string path() const { return parent + "/" + name; }
};

// One container's amounts for its own cgroup (runtime::container_linux_resources turns them
// into shares, quota and limit): 0 where the container sets none.
struct ContainerCgroupAmounts {
  int64_t cpu_request_milli = 0;
  int64_t cpu_limit_milli = 0;
  int64_t memory_limit_bytes = 0;
};
ContainerCgroupAmounts container_cgroup_amounts(const nlohmann::json& container);

// Requests and limits are summed as upstream does for a pod: app containers and sidecars
// (restartable init containers) together, or the largest ordinary init container (with the
// sidecars started before it) if that is more; spec.overhead added to the requests and to the
// limits that are set.
PodCgroup pod_cgroup(const nlohmann::json& pod);

// The QoS-level cgroups (upstream's qos container manager): kubepods/besteffort always gets the
// least shares (2); kubepods/burstable gets shares from the summed CPU requests of the node's
// active Burstable pods. This is one pod's share of that sum: its CPU requests when it is
// Burstable, else 0.
int64_t burstable_cpu_request_milli(const nlohmann::json& pod);

}  // namespace k3c::api

// A pod's QoS class as upstream computes it (v1 qos.GetPodQOS): only cpu and memory count;
// no request or limit anywhere -> BestEffort; every container (init containers too) limits
// both and the summed requests equal the summed limits -> Guaranteed; else Burstable.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace k3c::kubelet {

std::string pod_qos_class(const nlohmann::json& pod);

// The pod's cgroup below the cgroup roots, as upstream's cgroupfs layout names it:
// "kubepods/pod<uid>" (Guaranteed), "kubepods/burstable/pod<uid>", "kubepods/besteffort/pod<uid>".
std::string pod_cgroup_parent(const std::string& qos_class, const std::string& pod_uid);

}  // namespace k3c::kubelet

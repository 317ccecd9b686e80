// A pod's QoS class and pod-level cgroup (see pod_qos.h).
#include "api/pod_qos.h"

#include <set>

#include "api/json_fields.h"
#include "api/resource_list.h"

namespace k3c::api {
namespace {

using nlohmann::json;

// The resources the QoS class is computed from.
bool counts_for_qos(const std::string& name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}

bool positive(const ResourceList& list, const char* name) {
  auto it = list.find(name);
  return it != list.end() && it->second > Quantity();
}

ResourceList container_list(const json& container, const char* which) {
  return resource_list(member(member(container, "resources"), which));
}

// Every container of the pod: app containers, then init containers (sidecars included).
template <typename Fn>
void for_each_container(const json& spec, Fn fn) {
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = member(spec, list);
    if (!containers.is_array()) continue;
    for (const json& c : containers) fn(c);
  }
}

struct PodLimits {
  ResourceList limits;
  bool cpu_declared = true;     // every container (as upstream walks them) has a CPU limit
  bool memory_declared = true;  // ... and a memory limit
};

// Upstream's PodLimits with the ContainerFn that ResourceConfigForPod passes: an init container
// is judged with the sidecars started before it, as its limits are summed.
PodLimits pod_limits(const json& spec) {
  PodLimits out;
  auto judge = [&](const ResourceList& l) {
    if (!positive(l, "cpu")) out.cpu_declared = false;
    if (!positive(l, "memory")) out.memory_declared = false;
  };
  const json& containers = member(spec, "containers");
  if (containers.is_array()) {
    for (const json& c : containers) {
      ResourceList l = container_list(c, "limits");
      judge(l);
      add_into(out.limits, l);
    }
  }
  ResourceList sidecars, init_peak;
  const json& inits = member(spec, "initContainers");
  if (inits.is_array()) {
    for (const json& c : inits) {
      ResourceList l = container_list(c, "limits");
      if (text(c, "restartPolicy") == "Always") {
        add_into(out.limits, l);
        add_into(sidecars, l);
        judge(sidecars);
        max_into(init_peak, sidecars);
      } else {
        add_into(l, sidecars);
        judge(l);
        max_into(init_peak, l);
      }
    }
  }
  max_into(out.limits, init_peak);
  for (const auto& [name, q] : resource_list(member(spec, "overhead"))) {
    auto it = out.limits.find(name);
    if (it != out.limits.end() && !it->second.is_zero()) it->second += q;
  }
  return out;
}

}  // namespace

std::string_view qos_class_name(QosClass qos) {
  switch (qos) {
    case QosClass::kGuaranteed:
      return "Guaranteed";
    case QosClass::kBurstable:
      return "Burstable";
    case QosClass::kBestEffort:
      return "BestEffort";
  }
  return "BestEffort";
}

QosClass compute_qos_class(const json& pod) {
  ResourceList requests, limits;
  bool guaranteed = true;
  for_each_container(member(pod, "spec"), [&](const json& c) {
    for (const auto& [name, q] : container_list(c, "requests")) {
      if (counts_for_qos(name) && q > Quantity()) add_into(requests, {{name, q}});
    }
    std::set<std::string> limited;
    for (const auto& [name, q] : container_list(c, "limits")) {
      if (!counts_for_qos(name) || !(q > Quantity())) continue;
      limited.insert(name);
      add_into(limits, {{name, q}});
    }
    if (!limited.count("cpu") || !limited.count("memory")) guaranteed = false;
  });
  if (requests.empty() && limits.empty()) return QosClass::kBestEffort;
  if (guaranteed) {
    for (const auto& [name, q] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || !(it->second == q)) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? QosClass::kGuaranteed
                                                        : QosClass::kBurstable;
}

QosClass qos_class(const json& pod) {
  const std::string stored = text(member(pod, "status"), "qosClass");
  for (QosClass q : {QosClass::kGuaranteed, QosClass::kBurstable, QosClass::kBestEffort}) {
    if (stored == qos_class_name(q)) return q;
  }
  return compute_qos_class(pod);
}

ContainerCgroupAmounts container_cgroup_amounts(const json& container) {
  const ResourceList requests = container_list(container, "requests");
  const ResourceList limits = container_list(container, "limits");
  auto at = [](const ResourceList& l, const char* name) -> const Quantity* {
    auto it = l.find(name);
    return it == l.end() ? nullptr : &it->second;
  };
  ContainerCgroupAmounts out;
  if (const Quantity* q = at(requests, "cpu")) out.cpu_request_milli = q->milli_value();
  if (const Quantity* q = at(limits, "cpu")) out.cpu_limit_milli = q->milli_value();
  if (const Quantity* q = at(limits, "memory")) out.memory_limit_bytes = q->value();
  return out;
}

PodCgroup pod_cgroup(const json& pod) {
  const json& spec = member(pod, "spec");
  PodCgroup out;
  out.qos = qos_class(pod);
  out.name = "pod" + text(member(pod, "metadata"), "uid");
  switch (out.qos) {
    case QosClass::kGuaranteed:
      out.parent = "kubepods";
      break;
    case QosClass::kBurstable:
      out.parent = "kubepods/burstable";
      break;
    case QosClass::kBestEffort:
      out.parent = "kubepods/besteffort";
      return out;  // the least shares, no limits
  }
  const ResourceList requests = pod_resources(spec, "requests");
  const PodLimits limits = pod_limits(spec);
  auto milli = [](const ResourceList& l, const char* name) -> int64_t {
    auto it = l.find(name);
    return it == l.end() ? 0 : it->second.milli_value();
  };
  out.cpu_request_milli = milli(requests, "cpu");
  const bool guaranteed = out.qos == QosClass::kGuaranteed;
  if (guaranteed || limits.cpu_declared) out.cpu_limit_milli = milli(limits.limits, "cpu");
  if (guaranteed || limits.memory_declared) {
    auto it = limits.limits.find("memory");
    out.memory_limit_bytes = it == limits.limits.end() ? 0 : it->second.value();
  }
  return out;
}

int64_t burstable_cpu_request_milli(const json& pod) {
  if (qos_class(pod) != QosClass::kBurstable) return 0;
  const ResourceList requests = pod_resources(member(pod, "spec"), "requests");
  auto it = requests.find("cpu");
  return it == requests.end() ? 0 : it->second.milli_value();
}

}  // namespace k3c::api

// QoS class (see qos.h).
#include "roles/kubelet/pods/qos.h"

#include <map>
#include <set>

#include "api/quantity.h"

namespace k3c::kubelet {

using nlohmann::json;

std::string pod_qos_class(const json& pod) {
  std::map<std::string, api::Quantity> requests, limits;
  bool guaranteed = true;
  const json spec = pod.value("spec", json::object());
  for (const char* list : {"containers", "initContainers"}) {
    for (const auto& c : spec.value(list, json::array())) {
      const json resources = c.value("resources", json::object());
      auto sum = [&](const char* kind, std::map<std::string, api::Quantity>& into) {
        std::set<std::string> found;
        const json amounts = resources.value(kind, json::object());
        for (const auto& [name, value] : amounts.items()) {
          if (name != "cpu" && name != "memory") continue;
          auto q =
              api::Quantity::parse(value.is_string() ? value.get<std::string>() : value.dump());
          if (!q || q->is_zero() || q->negative()) continue;
          into[name] += *q;
          found.insert(name);
        }
        return found;
      };
      sum("requests", requests);
      if (sum("limits", limits).size() != 2) guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, request] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || !(it->second == request)) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

std::string pod_cgroup_parent(const std::string& qos_class, const std::string& pod_uid) {
  if (qos_class == "Guaranteed") return "kubepods/pod" + pod_uid;
  if (qos_class == "BestEffort") return "kubepods/besteffort/pod" + pod_uid;
  return "kubepods/burstable/pod" + pod_uid;
}

}  // namespace k3c::kubelet

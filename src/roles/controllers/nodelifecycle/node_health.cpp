#include "roles/controllers/nodelifecycle/node_health.h"

#include <algorithm>

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {
namespace {

constexpr std::string_view kTaintPrefix = "node.kubernetes.io/";

bool owned_taint_key(std::string_view key) {
  if (!key.starts_with(kTaintPrefix)) return false;
  key.remove_prefix(kTaintPrefix.size());
  for (std::string_view k : {"not-ready", "unreachable", "memory-pressure", "disk-pressure",
                             "pid-pressure", "network-unavailable", "unschedulable"}) {
    if (key == k) return true;
  }
  return false;
}

}  // namespace

bool mark_node_status_unknown(json& node, const std::string& now) {
  json& status = node["status"];
  if (!status.is_object()) status = json::object();
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  bool changed = false;
  for (const char* type : kNodeConditionTypes) {
    auto it = std::find_if(conditions.begin(), conditions.end(), [&](const json& c) {
      return c.is_object() && c.value("type", "") == type;
    });
    if (it == conditions.end()) {
      const json& created = node["metadata"]["creationTimestamp"];
      conditions.push_back({{"type", type},
                            {"status", "Unknown"},
                            {"reason", "NodeStatusNeverUpdated"},
                            {"message", "Kubelet never posted node status."},
                            {"lastHeartbeatTime", created.is_string() ? created : json(now)},
                            {"lastTransitionTime", now}});
      changed = true;
    } else if (it->value("status", "") != "Unknown") {
      (*it)["status"] = "Unknown";
      (*it)["reason"] = "NodeStatusUnknown";
      (*it)["message"] = "Kubelet stopped posting node status.";
      (*it)["lastTransitionTime"] = now;
      changed = true;
    }
  }
  return changed;
}

std::vector<ConditionTaint> condition_taints(const json& node) {
  std::vector<ConditionTaint> taints;
  auto add = [&](const char* key, const char* effect) {
    taints.push_back({std::string(kTaintPrefix) + key, effect});
  };
  const std::string ready = condition_status(node, "Ready");
  if (ready == "False") {
    add("not-ready", "NoExecute");
    add("not-ready", "NoSchedule");
  } else if (ready == "Unknown") {
    add("unreachable", "NoExecute");
    add("unreachable", "NoSchedule");
  }
  if (condition_status(node, "MemoryPressure") == "True") add("memory-pressure", "NoSchedule");
  if (condition_status(node, "DiskPressure") == "True") add("disk-pressure", "NoSchedule");
  if (condition_status(node, "PIDPressure") == "True") add("pid-pressure", "NoSchedule");
  if (condition_status(node, "NetworkUnavailable") == "True") {
    add("network-unavailable", "NoSchedule");
  }
  auto spec = node.find("spec");
  if (spec != node.end() && spec->is_object() && spec->value("unschedulable", false)) {
    add("unschedulable", "NoSchedule");
  }
  return taints;
}

bool reconcile_condition_taints(json& node, const std::vector<ConditionTaint>& wanted,
                                const std::string& now) {
  json& spec = node["spec"];
  if (!spec.is_object()) spec = json::object();
  const json current = spec.value("taints", json::array());
  json kept = json::array();
  std::vector<ConditionTaint> present;
  for (const json& t : current) {
    const std::string key = t.is_object() ? t.value("key", "") : "";
    const std::string effect = t.is_object() ? t.value("effect", "") : "";
    if (!owned_taint_key(key)) {
      kept.push_back(t);
      continue;
    }
    bool wanted_here = std::any_of(wanted.begin(), wanted.end(), [&](const ConditionTaint& w) {
      return w.key == key && w.effect == effect;
    });
    if (wanted_here) {
      kept.push_back(t);
      present.push_back({key, effect});
    }
  }
  for (const ConditionTaint& w : wanted) {
    bool there = std::any_of(present.begin(), present.end(), [&](const ConditionTaint& p) {
      return p.key == w.key && p.effect == w.effect;
    });
    if (there) continue;
    json taint = {{"key", w.key}, {"effect", w.effect}};
    if (w.effect == "NoExecute") taint["timeAdded"] = now;
    kept.push_back(std::move(taint));
  }
  if (kept == current || (kept.empty() && !spec.contains("taints"))) return false;
  if (kept.empty()) {
    spec.erase("taints");
  } else {
    spec["taints"] = std::move(kept);
  }
  return true;
}

}  // namespace k3c::controllers

// Which informer events matter to the scheduler (see object_changes.h).
#include "roles/scheduler/role/object_changes.h"

namespace k3c::scheduler {

using nlohmann::json;

namespace {

const json& field(const json& object, const char* a, const char* b = nullptr) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(a);
  if (it == object.end()) return kNull;
  if (!b) return *it;
  if (!it->is_object()) return kNull;
  auto inner = it->find(b);
  return inner == it->end() ? kNull : *inner;
}

std::string text(const json& value) { return value.is_string() ? value.get<std::string>() : ""; }

json without_bookkeeping(const json& pod) {
  json copy = pod;
  copy.erase("status");
  if (copy.contains("metadata") && copy["metadata"].is_object()) {
    for (const char* k : {"resourceVersion", "managedFields", "generation"})
      copy["metadata"].erase(k);
  }
  return copy;
}

std::string ready_status(const json& node) {
  const json& conditions = field(node, "status", "conditions");
  if (!conditions.is_array()) return "";
  for (const json& c : conditions) {
    if (c.is_object() && text(field(c, "type")) == "Ready") return text(field(c, "status"));
  }
  return "";
}

}  // namespace

bool pod_finished(const json& pod) {
  std::string phase = text(field(pod, "status", "phase"));
  return phase == "Succeeded" || phase == "Failed";
}

bool waits_for_scheduler(const json& pod, const std::string& scheduler_name) {
  std::string name = text(field(pod, "spec", "schedulerName"));
  if (name.empty()) name = "default-scheduler";
  if (name != scheduler_name) return false;
  if (!text(field(pod, "spec", "nodeName")).empty()) return false;
  if (!field(pod, "metadata", "deletionTimestamp").is_null()) return false;
  return !pod_finished(pod);
}

bool pod_spec_changed(const json& old_pod, const json& new_pod) {
  return without_bookkeeping(old_pod) != without_bookkeeping(new_pod);
}

bool node_scheduling_changed(const json& old_node, const json& new_node) {
  return field(old_node, "metadata", "labels") != field(new_node, "metadata", "labels") ||
         field(old_node, "spec", "taints") != field(new_node, "spec", "taints") ||
         field(old_node, "spec", "unschedulable") != field(new_node, "spec", "unschedulable") ||
         field(old_node, "status", "allocatable") != field(new_node, "status", "allocatable") ||
         ready_status(old_node) != ready_status(new_node);
}

std::optional<json> unschedulable_patch(const json& pod, const std::string& message,
                                        const std::string& nominated_node, const std::string& now) {
  json current;
  const json& conditions = field(pod, "status", "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (c.is_object() && text(field(c, "type")) == "PodScheduled") current = c;
    }
  }
  bool was_false = text(field(current, "status")) == "False";
  bool nominate =
      !nominated_node.empty() && text(field(pod, "status", "nominatedNodeName")) != nominated_node;
  if (was_false && text(field(current, "reason")) == "Unschedulable" &&
      text(field(current, "message")) == message && !nominate) {
    return std::nullopt;
  }
  std::string since = now;
  if (was_false && field(current, "lastTransitionTime").is_string()) {
    since = field(current, "lastTransitionTime").get<std::string>();
  }
  json condition = {{"type", "PodScheduled"},    {"status", "False"},
                    {"reason", "Unschedulable"}, {"message", message},
                    {"lastProbeTime", nullptr},  {"lastTransitionTime", since}};
  json status = {{"conditions", json::array({condition})}};
  if (nominate) status["nominatedNodeName"] = nominated_node;
  return json{{"status", status}};
}

}  // namespace k3c::scheduler

// Which informer events matter to the scheduler (see object_changes.h).
#include "roles/scheduler/role/object_changes.h"

#include "api/json_fields.h"

namespace k3c::scheduler {

using nlohmann::json;

namespace {

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
  const json& conditions = api::member(api::member(node, "status"), "conditions");
  if (!conditions.is_array()) return "";
  for (const json& c : conditions) {
    if (c.is_object() && api::text(c, "type") == "Ready") return api::text(c, "status");
  }
  return "";
}

}  // namespace

bool pod_finished(const json& pod) {
  std::string phase = api::text(api::member(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

bool waits_for_scheduler(const json& pod, const std::string& scheduler_name) {
  std::string name = api::text(api::member(pod, "spec"), "schedulerName");
  if (name.empty()) name = "default-scheduler";
  if (name != scheduler_name) return false;
  if (!api::text(api::member(pod, "spec"), "nodeName").empty()) return false;
  if (!api::member(api::member(pod, "metadata"), "deletionTimestamp").is_null()) return false;
  return !pod_finished(pod);
}

bool pod_spec_changed(const json& old_pod, const json& new_pod) {
  return without_bookkeeping(old_pod) != without_bookkeeping(new_pod);
}

bool node_scheduling_changed(const json& old_node, const json& new_node) {
  return api::member(api::member(old_node, "metadata"), "labels") !=
             api::member(api::member(new_node, "metadata"), "labels") ||
         api::member(api::member(old_node, "spec"), "taints") !=
             api::member(api::member(new_node, "spec"), "taints") ||
         api::member(api::member(old_node, "spec"), "unschedulable") !=
             api::member(api::member(new_node, "spec"), "unschedulable") ||
         api::member(api::member(old_node, "status"), "allocatable") !=
             api::member(api::member(new_node, "status"), "allocatable") ||
         ready_status(old_node) != ready_status(new_node);
}

std::optional<json> unschedulable_patch(const json& pod, const std::string& message,
                                        const std::string& nominated_node, const std::string& now) {
  json current;
  const json& conditions = api::member(api::member(pod, "status"), "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (c.is_object() && api::text(c, "type") == "PodScheduled") current = c;
    }
  }
  bool was_false = api::text(current, "status") == "False";
  bool nominate = !nominated_node.empty() &&
                  api::text(api::member(pod, "status"), "nominatedNodeName") != nominated_node;
  if (was_false && api::text(current, "reason") == "Unschedulable" &&
      api::text(current, "message") == message && !nominate) {
    return std::nullopt;
  }
  std::string since = now;
  if (was_false && api::member(current, "lastTransitionTime").is_string()) {
    since = api::member(current, "lastTransitionTime").get<std::string>();
  }
  json condition = {{"type", "PodScheduled"},    {"status", "False"},
                    {"reason", "Unschedulable"}, {"message", message},
                    {"lastProbeTime", nullptr},  {"lastTransitionTime", since}};
  json status = {{"conditions", json::array({condition})}};
  if (nominate) status["nominatedNodeName"] = nominated_node;
  return json{{"status", status}};
}

}  // namespace k3c::scheduler

// Priority, DefaultTolerationSeconds and DefaultStorageClass (see pod_admission.h).
#include "roles/apiserver/pod_admission.h"

#include <algorithm>

#include "api/json_fields.h"

namespace k3c::apiserver {

using api::member;
using api::text;
namespace {

using nlohmann::json;

std::string name_of(const json& o) { return text(member(o, "metadata"), "name"); }

int64_t value_of(const json& priority_class) {
  const json& v = member(priority_class, "value");
  return v.is_number_integer() ? v.get<int64_t>() : 0;
}

// The global default class; with several (a race), the one of lowest value, as upstream.
const json* global_default(const std::vector<json>& classes) {
  const json* best = nullptr;
  for (const json& c : classes) {
    if (member(c, "globalDefault") != true) continue;
    if (!best || value_of(c) < value_of(*best)) best = &c;
  }
  return best;
}

bool is_default_class(const json& storage_class) {
  const json& annotations = member(member(storage_class, "metadata"), "annotations");
  return text(annotations, "storageclass.kubernetes.io/is-default-class") == "true" ||
         text(annotations, "storageclass.beta.kubernetes.io/is-default-class") == "true";
}

json priority_class(const char* name, int64_t value, const char* description) {
  return {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
          {"metadata", {{"name", name}}},         {"value", value},
          {"description", description},           {"preemptionPolicy", "PreemptLowerPriority"}};
}

}  // namespace

std::vector<json> system_priority_classes() {
  return {priority_class("system-node-critical", 2000001000,
                         "Used for system critical pods that must not be moved from their "
                         "current node."),
          priority_class("system-cluster-critical", 2000000000,
                         "Used for system critical pods that must run in the cluster, but can "
                         "be moved to another node if necessary.")};
}

std::string admit_pod_priority(json& pod, const std::vector<json>& classes) {
  if (!member(pod, "spec").is_object()) return "";
  json& spec = pod["spec"];
  std::string name = text(spec, "priorityClassName");
  int64_t priority = 0;
  json policy = "PreemptLowerPriority";
  if (name.empty()) {
    if (const json* d = global_default(classes)) {
      spec["priorityClassName"] = name_of(*d);
      priority = value_of(*d);
      policy = member(*d, "preemptionPolicy");
    }
  } else {
    auto found = std::find_if(classes.begin(), classes.end(),
                              [&](const json& c) { return name_of(c) == name; });
    if (found == classes.end()) return "no PriorityClass with name " + name + " was found";
    priority = value_of(*found);
    policy = member(*found, "preemptionPolicy");
  }
  const json& given = member(spec, "priority");
  if (given.is_number_integer() && given.get<int64_t>() != priority) {
    return "the integer value of priority (" + std::to_string(given.get<int64_t>()) +
           ") must not be provided in pod spec; priority admission controller computed " +
           std::to_string(priority) + " from the given PriorityClass name";
  }
  spec["priority"] = priority;
  if (policy.is_string()) {
    const json& asked = member(spec, "preemptionPolicy");
    if (asked.is_string() && asked != policy) {
      return "the string value of PreemptionPolicy (" + asked.get<std::string>() +
             ") must not be provided in pod spec; priority admission controller computed " +
             policy.get<std::string>() + " from the given PriorityClass name";
    }
    spec["preemptionPolicy"] = policy;
  }
  return "";
}

void keep_pod_priority(json& pod, const json& old) {
  if (!member(pod, "spec").is_object()) return;
  json& spec = pod["spec"];
  const json& before = member(old, "spec");
  for (const char* field : {"priority", "preemptionPolicy"}) {
    if (member(spec, field).is_null() && !member(before, field).is_null())
      spec[field] = before[field];
  }
}

std::string check_priority_class(const json& pc, const std::vector<json>& classes) {
  if (member(pc, "globalDefault") != true) return "";
  const json* d = global_default(classes);
  if (!d || name_of(*d) == name_of(pc)) return "";
  return "PriorityClass " + name_of(*d) +
         " is already marked as default. Only one default can exist";
}

void default_toleration_seconds(json& pod) {
  if (!member(pod, "spec").is_object()) return;
  json& spec = pod["spec"];
  json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) {
    if (!tolerations.is_null()) return;  // validation reports it
    tolerations = json::array();
  }
  bool not_ready = false, unreachable = false;
  for (const json& t : tolerations) {
    std::string key = text(t, "key"), effect = text(t, "effect");
    if (!effect.empty() && effect != "NoExecute") continue;
    not_ready |= key.empty() || key == "node.kubernetes.io/not-ready";
    unreachable |= key.empty() || key == "node.kubernetes.io/unreachable";
  }
  for (auto [key, tolerated] : {std::pair{"node.kubernetes.io/not-ready", not_ready},
                                std::pair{"node.kubernetes.io/unreachable", unreachable}}) {
    if (tolerated) continue;
    tolerations.push_back({{"key", key},
                           {"operator", "Exists"},
                           {"effect", "NoExecute"},
                           {"tolerationSeconds", 300}});
  }
}

void default_storage_class(json& claim, const std::vector<json>& storage_classes) {
  if (!claim.is_object()) return;
  const json& annotations = member(member(claim, "metadata"), "annotations");
  if (!member(annotations, "volume.beta.kubernetes.io/storage-class").is_null()) return;
  if (!member(member(claim, "spec"), "storageClassName").is_null()) return;
  // The newest default wins; at the same second, the first by name (upstream since 1.28).
  const json* chosen = nullptr;
  for (const json& c : storage_classes) {
    if (!is_default_class(c)) continue;
    if (!chosen) {
      chosen = &c;
      continue;
    }
    std::string t = text(member(c, "metadata"), "creationTimestamp");
    std::string best = text(member(*chosen, "metadata"), "creationTimestamp");
    if (t > best || (t == best && name_of(c) < name_of(*chosen))) chosen = &c;
  }
  if (!chosen) return;
  if (!claim["spec"].is_object()) claim["spec"] = json::object();
  claim["spec"]["storageClassName"] = name_of(*chosen);
}

}  // namespace k3c::apiserver

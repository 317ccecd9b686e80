// The defaulting and validation that upstream writes as code rather than as one field's
// default (k8s.io/kubernetes pkg/apis/*/v1/defaults.go and pkg/apis/*/validation): rules
// that look at several fields at once. One small function per type, found by the type's
// qualified name; they run wherever the type appears (validation.h).
#include <map>
#include <optional>
#include <set>

#include "api/validation.h"
#include "core/cron_schedule.h"
#include "core/selector.h"
#include "core/time_zone.h"

namespace k3c::api {
namespace {

using nlohmann::json;

bool absent(const json& object, const char* field) {
  auto it = object.find(field);
  return it == object.end() || it->is_null();
}

std::string string_at(const json& object, const char* field, std::string fallback = "") {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// A member of a const object, or null (operator[] on a const json must not miss).
const json& get(const json& object, const char* field) {
  static const json null;
  if (!object.is_object()) return null;
  auto it = object.find(field);
  return it == object.end() ? null : *it;
}

// An object member, created as {} when absent or null; nullptr when it holds something else.
json* object_at(json& object, const char* field) {
  json& v = object[field];
  if (v.is_null()) v = json::object();
  return v.is_object() ? &v : nullptr;
}

// --- core/v1 defaults --------------------------------------------------------------------

// Limits given without requests: the requests are the limits (per resource).
void copy_limits_to_requests(json& spec, const char* list) {
  auto it = spec.find(list);
  if (it == spec.end() || !it->is_array()) return;
  for (json& c : *it) {
    if (!c.is_object() || !get(c, "resources").is_object()) continue;
    json& res = c["resources"];
    if (!get(res, "limits").is_object()) continue;
    json* requests = object_at(res, "requests");
    if (!requests) continue;
    for (auto& [name, quantity] : res["limits"].items()) {
      if (!requests->contains(name)) (*requests)[name] = quantity;
    }
  }
}

void pod_defaults(json& pod) {
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return;
  // Only a Pod's own spec, not a template's, gets enableServiceLinks (as upstream).
  if (absent(*spec, "enableServiceLinks")) (*spec)["enableServiceLinks"] = true;
  copy_limits_to_requests(*spec, "containers");
  copy_limits_to_requests(*spec, "initContainers");
}

// The tag of an image reference ("" when it names a digest): "nginx" -> "latest",
// "registry:5000/app:1.2" -> "1.2".
std::string image_tag(const std::string& image) {
  if (image.find('@') != std::string::npos) return "";
  size_t slash = image.rfind('/');
  size_t colon = image.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return "latest";
  return image.substr(colon + 1);
}

void container_defaults(json& c) {
  if (absent(c, "imagePullPolicy") || c["imagePullPolicy"] == "") {
    c["imagePullPolicy"] = image_tag(string_at(c, "image")) == "latest" ? "Always" : "IfNotPresent";
  }
}

// A volume that names no source is an emptyDir.
void volume_defaults(json& v) {
  for (auto& [k, value] : v.items()) {
    if (k != "name" && !value.is_null()) return;
  }
  v["emptyDir"] = json::object();
}

void service_spec_defaults(json& spec) {
  std::string type = string_at(spec, "type", "ClusterIP");
  if (type != "ExternalName" && absent(spec, "internalTrafficPolicy"))
    spec["internalTrafficPolicy"] = "Cluster";
  if ((type == "NodePort" || type == "LoadBalancer") && absent(spec, "externalTrafficPolicy"))
    spec["externalTrafficPolicy"] = "Cluster";
  if (type == "LoadBalancer" && absent(spec, "allocateLoadBalancerNodePorts"))
    spec["allocateLoadBalancerNodePorts"] = true;
  if (string_at(spec, "sessionAffinity") == "ClientIP") {
    json* config = object_at(spec, "sessionAffinityConfig");
    json* client = config ? object_at(*config, "clientIP") : nullptr;
    if (client && absent(*client, "timeoutSeconds")) (*client)["timeoutSeconds"] = 10800;
  }
}

void service_port_defaults(json& port) {
  auto target = port.find("targetPort");
  bool unset = target == port.end() || target->is_null() || *target == 0 || *target == "";
  if (unset && port.contains("port")) port["targetPort"] = port["port"];
}

void priority_class_defaults(json& pc) {
  if (absent(pc, "preemptionPolicy")) pc["preemptionPolicy"] = "PreemptLowerPriority";
}

// A Container item's default limit is its max, its default request the default limit, or
// else its min (upstream's SetDefaults_LimitRangeItem).
void limit_range_item_defaults(json& item) {
  if (string_at(item, "type") != "Container") return;
  json* defaults = object_at(item, "default");
  json* requests = object_at(item, "defaultRequest");
  if (!defaults || !requests) return;
  auto fill = [](json& into, const json& from) {
    if (!from.is_object()) return;
    for (auto& [name, q] : from.items()) {
      if (!into.contains(name)) into[name] = q;
    }
  };
  fill(*defaults, get(item, "max"));
  fill(*requests, *defaults);
  fill(*requests, get(item, "min"));
  if (defaults->empty()) item.erase("default");
  if (requests->empty()) item.erase("defaultRequest");
}

// A ReplicationController selects, and is labelled with, its template's labels by default.
void replication_controller_defaults(json& rc) {
  json* spec = object_at(rc, "spec");
  if (!spec) return;
  const json labels = get(get(get(*spec, "template"), "metadata"), "labels");
  if (!labels.is_object() || labels.empty()) return;
  if (absent(*spec, "selector") || get(*spec, "selector").empty()) (*spec)["selector"] = labels;
  json* meta = object_at(rc, "metadata");
  if (meta && (absent(*meta, "labels") || get(*meta, "labels").empty())) (*meta)["labels"] = labels;
  if (absent(*spec, "replicas")) (*spec)["replicas"] = 1;
}

// --- apps/v1 defaults --------------------------------------------------------------------

// strategy.type defaults to `type_default`; a rolling update gets its knobs.
void rolling_strategy(json& spec, const char* field, const json& rolling) {
  json* strategy = object_at(spec, field);
  if (!strategy) return;
  if (absent(*strategy, "type")) (*strategy)["type"] = "RollingUpdate";
  if (get(*strategy, "type") != "RollingUpdate") return;
  json* r = object_at(*strategy, "rollingUpdate");
  if (!r) return;
  for (auto& [k, v] : rolling.items()) {
    if (absent(*r, k.c_str())) (*r)[k] = v;
  }
}

void set_absent(json& object, const json& defaults) {
  for (auto& [k, v] : defaults.items()) {
    if (absent(object, k.c_str())) object[k] = v;
  }
}

void deployment_spec_defaults(json& spec) {
  rolling_strategy(spec, "strategy", {{"maxUnavailable", "25%"}, {"maxSurge", "25%"}});
}

void replica_set_spec_defaults(json& spec) { set_absent(spec, {{"replicas", 1}}); }

void stateful_set_spec_defaults(json& spec) {
  set_absent(spec, {{"replicas", 1},
                    {"podManagementPolicy", "OrderedReady"},
                    {"revisionHistoryLimit", 10},
                    {"persistentVolumeClaimRetentionPolicy",
                     {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}}});
  rolling_strategy(spec, "updateStrategy", {{"partition", 0}});
}

void daemon_set_spec_defaults(json& spec) {
  set_absent(spec, {{"revisionHistoryLimit", 10}});
  rolling_strategy(spec, "updateStrategy", {{"maxUnavailable", 1}, {"maxSurge", 0}});
}

// --- batch/v1 defaults -------------------------------------------------------------------

void job_spec_defaults(json& spec) {
  // A job that says neither runs one pod to completion.
  if (absent(spec, "completions") && absent(spec, "parallelism")) spec["completions"] = 1;
  if (absent(spec, "parallelism")) spec["parallelism"] = 1;
  if (absent(spec, "backoffLimit"))
    spec["backoffLimit"] = absent(spec, "backoffLimitPerIndex") ? 6 : 2147483647;
  if (absent(spec, "podReplacementPolicy"))
    spec["podReplacementPolicy"] =
        absent(spec, "podFailurePolicy") ? "TerminatingOrFailed" : "Failed";
}

// A pod-condition pattern without a status matches the condition being True.
void pod_condition_pattern_defaults(json& pattern) { set_absent(pattern, {{"status", "True"}}); }

// Labels come from the template; unless the user manages the selector, the job selects its
// pods by its uid (upstream's generated selector, with the legacy label names alongside).
void job_defaults(json& job) {
  json* meta = object_at(job, "metadata");
  json* spec = object_at(job, "spec");
  if (!meta || !spec || !get(*spec, "template").is_object()) return;
  json* template_meta = object_at((*spec)["template"], "metadata");
  if (!template_meta) return;
  const json labels = get(*template_meta, "labels");
  if (labels.is_object() && !labels.empty() &&
      (absent(*meta, "labels") || get(*meta, "labels").empty()))
    (*meta)["labels"] = labels;
  if (get(*spec, "manualSelector") == true) return;
  std::string uid = string_at(*meta, "uid"), name = string_at(*meta, "name");
  if (uid.empty()) return;  // not yet created: the selector comes with the uid
  json* t_labels = object_at(*template_meta, "labels");
  json* selector = object_at(*spec, "selector");
  if (!t_labels || !selector) return;
  set_absent(*t_labels, {{"batch.kubernetes.io/controller-uid", uid},
                         {"batch.kubernetes.io/job-name", name},
                         {"controller-uid", uid},
                         {"job-name", name}});
  json* match = object_at(*selector, "matchLabels");
  if (match) set_absent(*match, {{"batch.kubernetes.io/controller-uid", uid}});
}

// --- validation --------------------------------------------------------------------------

// metav1.LabelSelector as a selector; nullopt when it is not a well-formed one.
std::optional<LabelSelector> selector_of(const json& s) {
  std::vector<LabelSelector::Requirement> reqs;
  if (auto ml = s.find("matchLabels"); ml != s.end() && ml->is_object()) {
    for (auto& [k, v] : ml->items()) {
      if (!v.is_string()) return std::nullopt;
      reqs.push_back({k, LabelSelector::Op::kIn, {v.get<std::string>()}});
    }
  }
  static const std::map<std::string, LabelSelector::Op> ops = {
      {"In", LabelSelector::Op::kIn},
      {"NotIn", LabelSelector::Op::kNotIn},
      {"Exists", LabelSelector::Op::kExists},
      {"DoesNotExist", LabelSelector::Op::kDoesNotExist}};
  if (auto me = s.find("matchExpressions"); me != s.end() && me->is_array()) {
    for (const json& e : *me) {
      if (!e.is_object()) return std::nullopt;
      auto op = ops.find(string_at(e, "operator"));
      if (op == ops.end()) return std::nullopt;
      LabelSelector::Requirement r{string_at(e, "key"), op->second, {}};
      if (auto values = e.find("values"); values != e.end() && values->is_array()) {
        for (const json& v : *values) {
          if (v.is_string()) r.values.push_back(v.get<std::string>());
        }
      }
      reqs.push_back(std::move(r));
    }
  }
  return LabelSelector::from_requirements(std::move(reqs));
}

Labels labels_of(const json& labels) {
  Labels out;
  if (!labels.is_object()) return out;
  for (auto& [k, v] : labels.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

// A workload's selector against its pod template (Deployments, ReplicaSets, StatefulSets,
// DaemonSets): the selector must select something and match the template's labels.
FieldErrors workload_selector(const json& spec, const std::string& path, const char* what) {
  FieldErrors out;
  auto sel = spec.find("selector");
  const json& given = get(get(get(spec, "template"), "metadata"), "labels");
  json template_labels = given.is_object() ? given : json::object();
  if (sel == spec.end() || sel->is_null()) {
    // A missing selector selects nothing, so it cannot match the template either.
    out.push_back(required(child(path, "selector")));
    out.push_back(invalid(child(path, "template.metadata.labels"), template_labels,
                          "`selector` does not match template `labels`"));
    return out;
  }
  if (!sel->is_object()) return out;
  auto selector = selector_of(*sel);
  if (sel->value("matchLabels", json::object()).empty() &&
      sel->value("matchExpressions", json::array()).empty()) {
    out.push_back(invalid(child(path, "selector"), *sel,
                          std::string("empty selector is invalid for ") + what));
    return out;
  }
  if (!selector) {
    out.push_back(invalid(child(path, "selector"), *sel, "invalid label selector"));
  } else if (!selector->matches(labels_of(template_labels))) {
    out.push_back(invalid(child(path, "template.metadata.labels"), template_labels,
                          "`selector` does not match template `labels`"));
  }
  return out;
}

std::string template_restart_policy(const json& spec) {
  const json& pod_spec = get(get(spec, "template"), "spec");
  return pod_spec.is_object() ? string_at(pod_spec, "restartPolicy") : "";
}

// Pods of a workload run forever: the template's restartPolicy must be Always.
void restart_always(const json& spec, const std::string& path, FieldErrors& out) {
  std::string policy = template_restart_policy(spec);
  if (!policy.empty() && policy != "Always")
    out.push_back(not_supported(child(path, "template.spec.restartPolicy"), policy, {"Always"}));
}

FieldErrors deployment_spec_validate(const json& spec, const json*, const std::string& path) {
  FieldErrors out = workload_selector(spec, path, "deployment");
  restart_always(spec, path, out);
  return out;
}

FieldErrors replica_set_spec_validate(const json& spec, const json*, const std::string& path) {
  FieldErrors out = workload_selector(spec, path, "deployment");
  restart_always(spec, path, out);
  return out;
}

FieldErrors job_spec_validate(const json& spec, const json*, const std::string& path) {
  FieldErrors out;
  std::string policy = template_restart_policy(spec);
  if (policy != "OnFailure" && policy != "Never") {
    out.push_back(
        not_supported(child(path, "template.spec.restartPolicy"), policy, {"OnFailure", "Never"}));
  }
  return out;
}

// spec.timeZone: an IANA name the system's zoneinfo knows (upstream: time.LoadLocation).
void time_zone_validate(const json& zone, const std::string& path, FieldErrors& out) {
  std::string name = zone.is_string() ? zone.get<std::string>() : "";
  if (name.empty()) {
    out.push_back(invalid(path, name, "timeZone must be nil or non-empty string"));
    return;
  }
  // Each part of the name as the tz database names files (digits and + tolerated).
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    std::string part = name.substr(start, slash == std::string::npos ? slash : slash - start);
    bool ok = !part.empty() && part.size() <= 14 && part != "." && part != ".." && part[0] != '-' &&
              part.find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
                  "mnopqrstuvwxyz.-_0123456789+") == std::string::npos;
    if (!ok) {
      out.push_back(invalid(path, name, "unknown time zone " + name));
      return;
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "local") {
    out.push_back(invalid(path, name,
                          "timeZone must be an explicit time zone as defined in "
                          "https://www.iana.org/time-zones"));
    return;
  }
  auto loaded = load_time_zone(name);
  if (!loaded.is_ok()) out.push_back(invalid(path, name, loaded.status().message()));
}

// The schedule parses as upstream's cron parser parses it; TZ= in it only where the old
// schedule had it (timeZone replaced it in 1.27); the job template's selector is generated.
FieldErrors cron_job_spec_validate(const json& spec, const json* old, const std::string& path) {
  FieldErrors out;
  std::string schedule = string_at(spec, "schedule");
  if (!schedule.empty()) {
    std::string at = child(path, "schedule");
    auto parsed = parse_cron_schedule(schedule);
    if (!parsed.is_ok()) {
      out.push_back(invalid(at, schedule, parsed.status().message()));
    } else if (!parsed->time_zone.empty()) {
      auto zone = load_time_zone(parsed->time_zone);
      if (!zone.is_ok()) {
        out.push_back(
            invalid(at, schedule,
                    "provided bad location " + parsed->time_zone + ": " + zone.status().message()));
      }
    }
    bool old_had_tz =
        old && old->is_object() && string_at(*old, "schedule").find("TZ") != std::string::npos;
    if (schedule.find("TZ") != std::string::npos) {
      if (!old_had_tz) {
        out.push_back(invalid(at, schedule,
                              "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
      } else if (!absent(spec, "timeZone")) {
        out.push_back(
            invalid(at, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"));
      }
    }
  }
  if (!absent(spec, "timeZone")) {
    const json* old_zone = old && old->is_object() ? &get(*old, "timeZone") : nullptr;
    if (!old_zone || *old_zone != spec["timeZone"])
      time_zone_validate(spec["timeZone"], child(path, "timeZone"), out);
  }
  const json& job_spec = get(get(spec, "jobTemplate"), "spec");
  if (job_spec.is_object() && !absent(job_spec, "selector")) {
    out.push_back(invalid(child(path, "jobTemplate.spec.selector"), job_spec["selector"],
                          "`selector` will be auto-generated"));
  }
  if (job_spec.is_object() && get(job_spec, "manualSelector") == true) {
    out.push_back(
        not_supported(child(path, "jobTemplate.spec.manualSelector"), true, {"nil", "false"}));
  }
  return out;
}

// A CronJob's name leaves room for the 11-character "-<minutes>" of its jobs (on create only,
// so that older, longer ones can still be changed).
FieldErrors cron_job_validate(const json& cronjob, const json* old, const std::string& path) {
  FieldErrors out;
  std::string name = string_at(get(cronjob, "metadata"), "name");
  if (!old && name.size() > 52)
    out.push_back(
        invalid(child(path, "metadata.name"), name, "must be no more than 52 characters"));
  return out;
}

// Container names are unique across a pod's containers and init containers.
FieldErrors pod_spec_validate(const json& spec, const json*, const std::string& path) {
  FieldErrors out;
  std::set<std::string> seen;
  for (const char* list : {"initContainers", "containers"}) {
    auto it = spec.find(list);
    if (it == spec.end() || !it->is_array()) continue;
    for (size_t i = 0; i < it->size(); ++i) {
      const json& c = (*it)[i];
      if (!c.is_object()) continue;
      std::string name = string_at(c, "name");
      if (!name.empty() && !seen.insert(name).second)
        out.push_back(duplicate(child(index(child(path, list), i), "name"), name));
    }
  }
  // Upstream keeps both in its internal PodSecurityContext: hence the path.
  auto on = [&](const char* field) {
    auto it = spec.find(field);
    return it != spec.end() && it->is_boolean() && it->get<bool>();
  };
  if (on("hostPID") && on("shareProcessNamespace")) {
    out.push_back(invalid(child(path, "securityContext.shareProcessNamespace"), true,
                          "ShareProcessNamespace and HostPID cannot both be enabled"));
  }
  return out;
}

// Ports are required unless the service is headless or an ExternalName; with several ports
// each needs a name, and names are unique.
FieldErrors service_spec_validate(const json& spec, const json*, const std::string& path) {
  FieldErrors out;
  std::string type = string_at(spec, "type", "ClusterIP");
  auto ports = spec.find("ports");
  bool none = ports == spec.end() || !ports->is_array() || ports->empty();
  if (none) {
    if (type != "ExternalName" && string_at(spec, "clusterIP") != "None")
      out.push_back(required(child(path, "ports")));
    return out;
  }
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    const json& p = (*ports)[i];
    if (!p.is_object()) continue;
    std::string name = string_at(p, "name");
    std::string at = child(index(child(path, "ports"), i), "name");
    if (name.empty() && ports->size() > 1) out.push_back(required(at));
    if (!name.empty() && !names.insert(name).second) out.push_back(duplicate(at, name));
    // An absent port is Go's zero, out of range (the schema's range covers present ones).
    if (absent(p, "port"))
      out.push_back(invalid(child(index(child(path, "ports"), i), "port"), 0,
                            "must be between 1 and 65535, inclusive"));
  }
  return out;
}

const std::map<std::string, TypeHooks, std::less<>>& table() {
  static const std::map<std::string, TypeHooks, std::less<>> hooks = {
      {"core.v1.Pod", {pod_defaults, nullptr}},
      {"core.v1.PodSpec", {nullptr, pod_spec_validate}},
      {"core.v1.Container", {container_defaults, nullptr}},
      {"core.v1.Volume", {volume_defaults, nullptr}},
      {"core.v1.ServiceSpec", {service_spec_defaults, service_spec_validate}},
      {"core.v1.ServicePort", {service_port_defaults, nullptr}},
      {"core.v1.ReplicationController", {replication_controller_defaults, nullptr}},
      {"core.v1.LimitRangeItem", {limit_range_item_defaults, nullptr}},
      {"scheduling.v1.PriorityClass", {priority_class_defaults, nullptr}},
      {"apps.v1.DeploymentSpec", {deployment_spec_defaults, deployment_spec_validate}},
      {"apps.v1.ReplicaSetSpec", {replica_set_spec_defaults, replica_set_spec_validate}},
      {"apps.v1.StatefulSetSpec", {stateful_set_spec_defaults, nullptr}},
      {"apps.v1.DaemonSetSpec", {daemon_set_spec_defaults, nullptr}},
      {"batch.v1.Job", {job_defaults, nullptr}},
      {"batch.v1.JobSpec", {job_spec_defaults, job_spec_validate}},
      {"batch.v1.CronJob", {nullptr, cron_job_validate}},
      {"batch.v1.PodFailurePolicyOnPodConditionsPattern",
       {pod_condition_pattern_defaults, nullptr}},
      {"batch.v1.CronJobSpec", {nullptr, cron_job_spec_validate}},
  };
  return hooks;
}

}  // namespace

const TypeHooks* hooks_for(std::string_view type_name) {
  auto it = table().find(type_name);
  return it == table().end() ? nullptr : &it->second;
}

}  // namespace k3c::api

// HorizontalPodAutoscaler autoscaling/v1 <-> autoscaling/v2, and Event core/v1 <->
// events.k8s.io/v1 (see version_conversion.h). The v1 side of HPA metrics lives in
// annotations as autoscaling/v1's MetricSpec and MetricStatus: the older flat shape
// (metricName, targetAverageValue, currentAverageUtilization, ...).
#include "api/version_conversion.h"

#include <cctype>

#include "api/json_fields.h"

namespace k3c::api {
namespace {

using nlohmann::json;

constexpr std::string_view kHpaV1 = "autoscaling/v1";
constexpr std::string_view kHpaV2 = "autoscaling/v2";

bool is_hpa(const json& o) {
  const std::string version = text(o, "apiVersion");
  return text(o, "kind") == "HorizontalPodAutoscaler" &&
         (version == kHpaV1 || version == kHpaV2);
}

// Copies from[key] to to[as] when present (and not null).
void carry(const json& from, const char* key, json& to, const char* as) {
  if (!from.is_object()) return;
  auto it = from.find(key);
  if (it != from.end() && !it->is_null()) to[as] = *it;
}
void carry(const json& from, const char* key, json& to) { carry(from, key, to, key); }

// The JSON list in annotation `name`, removed from the object's annotations; null when absent.
Result<json> take_annotation(json& meta, const char* name) {
  if (!meta.is_object()) return json();
  auto annotations = meta.find("annotations");
  if (annotations == meta.end() || !annotations->is_object()) return json();
  auto it = annotations->find(name);
  if (it == annotations->end()) return json();
  json value = it->is_string() ? json::parse(it->get<std::string>(), nullptr, false) : json();
  annotations->erase(it);
  if (annotations->empty()) meta.erase("annotations");
  if (value.is_discarded() || value.is_null()) {
    return error(Code::kInvalid, std::string("annotation ") + name + " is not valid JSON");
  }
  return value;
}

void put_annotation(json& meta, const char* name, const json& value) {
  meta["annotations"][name] = value.dump();
}

void drop_annotations(json& meta) {
  if (!meta.is_object() || !meta.contains("annotations")) return;
  json& a = meta["annotations"];
  if (!a.is_object()) return;
  for (const char* name : {kHpaMetricsAnnotation, kHpaCurrentMetricsAnnotation,
                           kHpaConditionsAnnotation, kHpaBehaviorAnnotation})
    a.erase(name);
  if (a.empty()) meta.erase("annotations");
}

// ---- metrics ---------------------------------------------------------------------------------
// One metric of the spec (side "target") or of the status (side "current"). v2 nests the
// side's values ({target: {type, value, averageValue, averageUtilization}}); v1 flattens them
// into names with the side in front (targetValue, currentAverageUtilization, ...), except for
// an Object metric's averageValue, which has no prefix in either.

// The key of a metric's source: "object", "pods", "resource", "containerResource", "external".
std::string source_key(const std::string& type) {
  if (type.empty()) return type;
  std::string key = type;
  key[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(key[0])));
  return key;
}

std::string flat(const std::string& side, const char* field) { return side + field; }

json metric_to_v1(const json& m, const std::string& side) {
  const std::string type = text(m, "type");
  const std::string key = source_key(type);
  const json& from = member(m, key.c_str());
  const json& values = member(from, side.c_str());
  const json& metric = member(from, "metric");
  json v1 = json::object();
  if (type == "Object") {
    carry(from, "describedObject", v1, "target");
    carry(metric, "name", v1, "metricName");
    carry(metric, "selector", v1);
    carry(values, "value", v1, flat(side, "Value").c_str());
    carry(values, "averageValue", v1);
  } else if (type == "Pods" || type == "External") {
    carry(metric, "name", v1, "metricName");
    carry(metric, "selector", v1, type == "Pods" ? "selector" : "metricSelector");
    if (type == "External") carry(values, "value", v1, flat(side, "Value").c_str());
    carry(values, "averageValue", v1, flat(side, "AverageValue").c_str());
  } else if (type == "Resource" || type == "ContainerResource") {
    carry(from, "name", v1);
    carry(from, "container", v1);
    carry(values, "averageUtilization", v1, flat(side, "AverageUtilization").c_str());
    carry(values, "averageValue", v1, flat(side, "AverageValue").c_str());
  } else {
    return m;  // a type neither version knows: kept as it is
  }
  return {{"type", type}, {key, std::move(v1)}};
}

json metric_to_v2(const json& m, const std::string& side) {
  const std::string type = text(m, "type");
  const std::string key = source_key(type);
  const json& from = member(m, key.c_str());
  json v2 = json::object();
  json values = json::object();
  if (type == "Object" || type == "Pods" || type == "External") {
    json metric = json::object();
    carry(from, "metricName", metric, "name");
    carry(from, type == "External" ? "metricSelector" : "selector", metric, "selector");
    if (type == "Object") carry(from, "target", v2, "describedObject");
    v2["metric"] = std::move(metric);
    if (type != "Pods") carry(from, flat(side, "Value").c_str(), values, "value");
    carry(from, type == "Object" ? "averageValue" : flat(side, "AverageValue").c_str(), values,
          "averageValue");
  } else if (type == "Resource" || type == "ContainerResource") {
    carry(from, "name", v2);
    carry(from, "container", v2);
    carry(from, flat(side, "AverageUtilization").c_str(), values, "averageUtilization");
    carry(from, flat(side, "AverageValue").c_str(), values, "averageValue");
  } else {
    return m;
  }
  if (side == "target") {  // a target says which of its values counts
    values["type"] = values.contains("averageUtilization") ? "Utilization"
                     : values.contains("averageValue")     ? "AverageValue"
                                                           : "Value";
  }
  v2[side] = std::move(values);
  return {{"type", type}, {key, std::move(v2)}};
}

bool is_cpu(const json& m, const char* part) {
  return text(m, "type") == "Resource" && text(member(m, "resource"), "name") == "cpu" &&
         member(member(member(m, "resource"), part), "averageUtilization").is_number();
}

// ---- whole objects ---------------------------------------------------------------------------

json hpa_to_v1(const json& in) {
  json out = {{"apiVersion", kHpaV1}, {"kind", "HorizontalPodAutoscaler"}};
  json meta = member(in, "metadata").is_object() ? member(in, "metadata") : json::object();
  drop_annotations(meta);
  const json& spec = member(in, "spec");
  json v1_spec = json::object();
  carry(spec, "scaleTargetRef", v1_spec);
  carry(spec, "minReplicas", v1_spec);
  carry(spec, "maxReplicas", v1_spec);
  json others = json::array();
  bool cpu_taken = false;
  for (const json& m : member(spec, "metrics").is_array() ? member(spec, "metrics") : json()) {
    if (!cpu_taken && is_cpu(m, "target")) {
      v1_spec["targetCPUUtilizationPercentage"] = m["resource"]["target"]["averageUtilization"];
      cpu_taken = true;
    } else {
      others.push_back(metric_to_v1(m, "target"));
    }
  }
  if (!others.empty()) put_annotation(meta, kHpaMetricsAnnotation, others);
  if (member(spec, "behavior").is_object()) put_annotation(meta, kHpaBehaviorAnnotation, spec["behavior"]);
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(v1_spec);
  if (const json& status = member(in, "status"); status.is_object()) {
    json v1_status = json::object();
    for (const char* key : {"observedGeneration", "lastScaleTime", "currentReplicas",
                            "desiredReplicas"})
      carry(status, key, v1_status);
    json current_others = json::array();
    bool cpu_seen = false;
    const json& current = member(status, "currentMetrics");
    for (const json& m : current.is_array() ? current : json()) {
      if (!cpu_seen && is_cpu(m, "current")) {
        v1_status["currentCPUUtilizationPercentage"] =
            m["resource"]["current"]["averageUtilization"];
        cpu_seen = true;
      } else {
        current_others.push_back(metric_to_v1(m, "current"));
      }
    }
    if (!current_others.empty())
      put_annotation(out["metadata"], kHpaCurrentMetricsAnnotation, current_others);
    if (const json& c = member(status, "conditions"); c.is_array() && !c.empty())
      put_annotation(out["metadata"], kHpaConditionsAnnotation, c);
    out["status"] = std::move(v1_status);
  }
  return out;
}

Result<json> hpa_to_v2(const json& in) {
  json out = {{"apiVersion", kHpaV2}, {"kind", "HorizontalPodAutoscaler"}};
  json meta = member(in, "metadata").is_object() ? member(in, "metadata") : json::object();
  ASSIGN_OR_RETURN(json other_metrics, take_annotation(meta, kHpaMetricsAnnotation));
  ASSIGN_OR_RETURN(json current_metrics, take_annotation(meta, kHpaCurrentMetricsAnnotation));
  ASSIGN_OR_RETURN(json conditions, take_annotation(meta, kHpaConditionsAnnotation));
  ASSIGN_OR_RETURN(json behavior, take_annotation(meta, kHpaBehaviorAnnotation));
  for (const auto* list : {&other_metrics, &current_metrics, &conditions}) {
    if (!list->is_null() && !list->is_array())
      return error(Code::kInvalid, "an autoscaling.alpha.kubernetes.io annotation is not a list");
  }
  const json& spec = member(in, "spec");
  json v2_spec = json::object();
  carry(spec, "scaleTargetRef", v2_spec);
  carry(spec, "minReplicas", v2_spec);
  carry(spec, "maxReplicas", v2_spec);
  // As upstream: the annotation's metrics first, then the CPU target.
  json metrics = json::array();
  for (const json& m : other_metrics.is_array() ? other_metrics : json()) metrics.push_back(metric_to_v2(m, "target"));
  if (const json& cpu = member(spec, "targetCPUUtilizationPercentage"); cpu.is_number()) {
    metrics.push_back({{"type", "Resource"},
                       {"resource",
                        {{"name", "cpu"},
                         {"target", {{"type", "Utilization"}, {"averageUtilization", cpu}}}}}});
  }
  if (!metrics.empty()) v2_spec["metrics"] = std::move(metrics);
  if (behavior.is_object()) v2_spec["behavior"] = std::move(behavior);
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(v2_spec);
  if (const json& status = member(in, "status"); status.is_object()) {
    json v2_status = json::object();
    for (const char* key : {"observedGeneration", "lastScaleTime", "currentReplicas",
                            "desiredReplicas"})
      carry(status, key, v2_status);
    json current = json::array();
    for (const json& m : current_metrics.is_array() ? current_metrics : json())
      current.push_back(metric_to_v2(m, "current"));
    if (const json& cpu = member(status, "currentCPUUtilizationPercentage"); cpu.is_number()) {
      current.push_back(
          {{"type", "Resource"},
           {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", cpu}}}}}});
    }
    if (!current.empty()) v2_status["currentMetrics"] = std::move(current);
    if (conditions.is_array()) v2_status["conditions"] = std::move(conditions);
    out["status"] = std::move(v2_status);
  }
  return out;
}

// ---- Event: core/v1 <-> events.k8s.io/v1 ---------------------------------------------------

constexpr std::string_view kCoreV1 = "v1";
constexpr std::string_view kEventsV1 = "events.k8s.io/v1";

bool is_event(const json& o) {
  const std::string version = text(o, "apiVersion");
  return text(o, "kind") == "Event" && (version == kCoreV1 || version == kEventsV1);
}

// The same fields under their names in events.k8s.io/v1 and in core/v1.
constexpr std::pair<const char*, const char*> kEventFields[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
    {"reportingController", "reportingComponent"},
    {"reportingInstance", "reportingInstance"},
    {"eventTime", "eventTime"},
    {"series", "series"},
    {"related", "related"},
    {"action", "action"},
    {"type", "type"},
    {"reason", "reason"}};

json event_to(const json& in, std::string_view api_version) {
  const bool to_core = api_version == kCoreV1;
  json out = {{"apiVersion", api_version}, {"kind", "Event"}};
  carry(in, "metadata", out);
  for (const auto& [events_name, core_name] : kEventFields) {
    carry(in, to_core ? events_name : core_name, out, to_core ? core_name : events_name);
  }
  return out;
}

// How a serialized object begins (nlohmann writes apiVersion first).
constexpr std::string_view kLead = R"({"apiVersion":")";

}  // namespace

std::string_view storage_version(std::string_view group, std::string_view kind) {
  if (group == "autoscaling" && kind == "HorizontalPodAutoscaler") return kHpaV2;
  // Upstream keeps events.k8s.io Events in the core shape, in the same store.
  if ((group.empty() || group == "events.k8s.io") && kind == "Event") return kCoreV1;
  return "";
}

size_t conversion_check_length(std::string_view api_version) {
  return kLead.size() + api_version.size() + 1;  // and the closing quote
}

bool may_need_conversion(std::string_view object, std::string_view api_version) {
  if (!object.starts_with(kLead)) return true;
  object.remove_prefix(kLead.size());
  return !(object.starts_with(api_version) && object.substr(api_version.size()).starts_with("\""));
}

Status convert_to_version(json& object, std::string_view api_version) {
  if (!object.is_object() || text(object, "apiVersion") == api_version) return Status::ok();
  if (is_event(object)) {
    if (api_version != kCoreV1 && api_version != kEventsV1)
      return error(Code::kInvalid, "no conversion of Event to " + std::string(api_version));
    object = event_to(object, api_version);
    return Status::ok();
  }
  if (!is_hpa(object)) return Status::ok();
  if (api_version == kHpaV1) {
    object = hpa_to_v1(object);
    return Status::ok();
  }
  if (api_version == kHpaV2) {
    ASSIGN_OR_RETURN(json v2, hpa_to_v2(object));
    object = std::move(v2);
    return Status::ok();
  }
  return error(Code::kInvalid, "no conversion of HorizontalPodAutoscaler to " +
                                   std::string(api_version));
}

}  // namespace k3c::api

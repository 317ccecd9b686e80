// HorizontalPodAutoscaler autoscaling/v1 <-> autoscaling/v2, and Event core/v1 <->
// events.k8s.io/v1 (see version_conversion.h). The v1 side of HPA metrics lives in
// annotations as autoscaling/v1's MetricSpec and MetricStatus: the older flat shape
// (metricName, targetAverageValue, currentAverageUtilization, ...).
#include "api/version_conversion.h"

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

// ---- metrics, v2 -> v1 ---------------------------------------------------------------------

json spec_to_v1(const json& m) {
  const std::string type = text(m, "type");
  json out = {{"type", type}};
  auto part = [&](const char* name) -> const json& { return member(m, name); };
  if (type == "Object") {
    const json& o = part("object");
    json v1 = json::object();
    carry(o, "describedObject", v1, "target");
    carry(member(o, "metric"), "name", v1, "metricName");
    carry(member(o, "metric"), "selector", v1);
    carry(member(o, "target"), "value", v1, "targetValue");
    carry(member(o, "target"), "averageValue", v1);
    out["object"] = std::move(v1);
  } else if (type == "Pods") {
    const json& p = part("pods");
    json v1 = json::object();
    carry(member(p, "metric"), "name", v1, "metricName");
    carry(member(p, "metric"), "selector", v1);
    carry(member(p, "target"), "averageValue", v1, "targetAverageValue");
    out["pods"] = std::move(v1);
  } else if (type == "Resource" || type == "ContainerResource") {
    const char* key = type == "Resource" ? "resource" : "containerResource";
    const json& r = part(key);
    json v1 = json::object();
    carry(r, "name", v1);
    carry(r, "container", v1);
    carry(member(r, "target"), "averageUtilization", v1, "targetAverageUtilization");
    carry(member(r, "target"), "averageValue", v1, "targetAverageValue");
    out[key] = std::move(v1);
  } else if (type == "External") {
    const json& e = part("external");
    json v1 = json::object();
    carry(member(e, "metric"), "name", v1, "metricName");
    carry(member(e, "metric"), "selector", v1, "metricSelector");
    carry(member(e, "target"), "value", v1, "targetValue");
    carry(member(e, "target"), "averageValue", v1, "targetAverageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

json status_to_v1(const json& m) {
  const std::string type = text(m, "type");
  json out = {{"type", type}};
  if (type == "Object") {
    const json& o = member(m, "object");
    json v1 = json::object();
    carry(o, "describedObject", v1, "target");
    carry(member(o, "metric"), "name", v1, "metricName");
    carry(member(o, "metric"), "selector", v1);
    carry(member(o, "current"), "value", v1, "currentValue");
    carry(member(o, "current"), "averageValue", v1);
    out["object"] = std::move(v1);
  } else if (type == "Pods") {
    const json& p = member(m, "pods");
    json v1 = json::object();
    carry(member(p, "metric"), "name", v1, "metricName");
    carry(member(p, "metric"), "selector", v1);
    carry(member(p, "current"), "averageValue", v1, "currentAverageValue");
    out["pods"] = std::move(v1);
  } else if (type == "Resource" || type == "ContainerResource") {
    const char* key = type == "Resource" ? "resource" : "containerResource";
    const json& r = member(m, key);
    json v1 = json::object();
    carry(r, "name", v1);
    carry(r, "container", v1);
    carry(member(r, "current"), "averageUtilization", v1, "currentAverageUtilization");
    carry(member(r, "current"), "averageValue", v1, "currentAverageValue");
    out[key] = std::move(v1);
  } else if (type == "External") {
    const json& e = member(m, "external");
    json v1 = json::object();
    carry(member(e, "metric"), "name", v1, "metricName");
    carry(member(e, "metric"), "selector", v1, "metricSelector");
    carry(member(e, "current"), "value", v1, "currentValue");
    carry(member(e, "current"), "averageValue", v1, "currentAverageValue");
    out["external"] = std::move(v1);
  }
  return out;
}

// ---- metrics, v1 -> v2 ---------------------------------------------------------------------

// {name, selector} of a v2 MetricIdentifier from v1's flat fields.
json metric_identifier(const json& v1, const char* selector_key) {
  json id = json::object();
  carry(v1, "metricName", id, "name");
  carry(v1, selector_key, id, "selector");
  return id;
}

// A v2 MetricTarget: Utilization, else AverageValue, else Value (by what v1 set).
json target_of(const json& v1, const char* utilization, const char* average, const char* value) {
  json t = json::object();
  if (utilization && member(v1, utilization).is_number()) {
    t["type"] = "Utilization";
    t["averageUtilization"] = member(v1, utilization);
  } else if (average && !member(v1, average).is_null()) {
    t["type"] = "AverageValue";
    t["averageValue"] = member(v1, average);
  } else if (value && !member(v1, value).is_null()) {
    t["type"] = "Value";
    t["value"] = member(v1, value);
  }
  return t;
}

json spec_to_v2(const json& m) {
  const std::string type = text(m, "type");
  json out = {{"type", type}};
  if (type == "Object") {
    const json& o = member(m, "object");
    json v2 = json::object();
    carry(o, "target", v2, "describedObject");
    v2["metric"] = metric_identifier(o, "selector");
    v2["target"] = target_of(o, nullptr, "averageValue", "targetValue");
    out["object"] = std::move(v2);
  } else if (type == "Pods") {
    const json& p = member(m, "pods");
    out["pods"] = {{"metric", metric_identifier(p, "selector")},
                   {"target", target_of(p, nullptr, "targetAverageValue", nullptr)}};
  } else if (type == "Resource" || type == "ContainerResource") {
    const char* key = type == "Resource" ? "resource" : "containerResource";
    const json& r = member(m, key);
    json v2 = json::object();
    carry(r, "name", v2);
    carry(r, "container", v2);
    v2["target"] = target_of(r, "targetAverageUtilization", "targetAverageValue", nullptr);
    out[key] = std::move(v2);
  } else if (type == "External") {
    const json& e = member(m, "external");
    out["external"] = {{"metric", metric_identifier(e, "metricSelector")},
                       {"target", target_of(e, nullptr, "targetAverageValue", "targetValue")}};
  }
  return out;
}

json status_to_v2(const json& m) {
  const std::string type = text(m, "type");
  json out = {{"type", type}};
  auto current = [](const json& v1, const char* utilization, const char* average,
                    const char* value) {
    json c = json::object();
    if (utilization) carry(v1, utilization, c, "averageUtilization");
    if (average) carry(v1, average, c, "averageValue");
    if (value) carry(v1, value, c, "value");
    return c;
  };
  if (type == "Object") {
    const json& o = member(m, "object");
    json v2 = json::object();
    carry(o, "target", v2, "describedObject");
    v2["metric"] = metric_identifier(o, "selector");
    v2["current"] = current(o, nullptr, "averageValue", "currentValue");
    out["object"] = std::move(v2);
  } else if (type == "Pods") {
    const json& p = member(m, "pods");
    out["pods"] = {{"metric", metric_identifier(p, "selector")},
                   {"current", current(p, nullptr, "currentAverageValue", nullptr)}};
  } else if (type == "Resource" || type == "ContainerResource") {
    const char* key = type == "Resource" ? "resource" : "containerResource";
    const json& r = member(m, key);
    json v2 = json::object();
    carry(r, "name", v2);
    carry(r, "container", v2);
    v2["current"] = current(r, "currentAverageUtilization", "currentAverageValue", nullptr);
    out[key] = std::move(v2);
  } else if (type == "External") {
    const json& e = member(m, "external");
    out["external"] = {{"metric", metric_identifier(e, "metricSelector")},
                       {"current", current(e, nullptr, "currentAverageValue", "currentValue")}};
  }
  return out;
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
      others.push_back(spec_to_v1(m));
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
        current_others.push_back(status_to_v1(m));
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
  for (const json& m : other_metrics.is_array() ? other_metrics : json()) metrics.push_back(spec_to_v2(m));
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
      current.push_back(status_to_v2(m));
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

}  // namespace

std::string_view storage_version(std::string_view group, std::string_view kind) {
  if (group == "autoscaling" && kind == "HorizontalPodAutoscaler") return kHpaV2;
  // Upstream keeps events.k8s.io Events in the core shape, in the same store.
  if ((group.empty() || group == "events.k8s.io") && kind == "Event") return kCoreV1;
  return "";
}

bool may_need_conversion(std::string_view object, std::string_view api_version) {
  constexpr std::string_view kLead = R"({"apiVersion":")";
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

// Printers of the workload groups: apps, batch, autoscaling and policy, following upstream's
// v1.32 printers.
#include "core/ids.h"
#include "roles/apiserver/printer_cells.h"

namespace k3c::apiserver::printers {
namespace {

Column containers_column() { return text("Containers", "Container names of the pod template.", 1); }
Column images_column() { return text("Images", "Container images of the pod template.", 1); }
Column selector_column() { return text("Selector", "Label selector of the pods.", 1); }

Cells deployment_cells(const json& o, WallTime now) {
  auto [names, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          std::to_string(num(o, {"status", "readyReplicas"})) + "/" +
              std::to_string(num(o, {"spec", "replicas"}, 1)),
          num(o, {"status", "updatedReplicas"}),
          num(o, {"status", "availableReplicas"}),
          age_of(o, now),
          names,
          images,
          selector_text(at(o, {"spec", "selector"}))};  // no "<none>" here, as upstream
}

Cells replicaset_cells(const json& o, WallTime now) {
  auto [names, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          num(o, {"spec", "replicas"}, 1),
          num(o, {"status", "replicas"}),
          num(o, {"status", "readyReplicas"}),
          age_of(o, now),
          names,
          images,
          format_label_selector(at(o, {"spec", "selector"}))};
}

Cells daemonset_cells(const json& o, WallTime now) {
  auto [names, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          num(o, {"status", "desiredNumberScheduled"}),
          num(o, {"status", "currentNumberScheduled"}),
          num(o, {"status", "numberReady"}),
          num(o, {"status", "updatedNumberScheduled"}),
          num(o, {"status", "numberAvailable"}),
          format_labels(at(o, {"spec", "template", "spec", "nodeSelector"})),
          age_of(o, now),
          names,
          images,
          format_label_selector(at(o, {"spec", "selector"}))};
}

Cells statefulset_cells(const json& o, WallTime now) {
  auto [names, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          std::to_string(num(o, {"status", "readyReplicas"})) + "/" +
              std::to_string(num(o, {"spec", "replicas"}, 1)),
          age_of(o, now), names, images};
}

// The controlling owner as "kind.group/name" in lower case, "<none>" without one.
std::string controller_of(const json& o) {
  const json& refs = at(o, {"metadata", "ownerReferences"});
  if (!refs.is_array()) return "<none>";
  for (const auto& r : refs) {
    if (!flag(r, {"controller"})) continue;
    std::string api_version = str(r, {"apiVersion"});
    auto slash = api_version.find('/');
    std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    std::string kind = str(r, {"kind"});
    if (kind.empty()) return str(r, {"name"});
    return lower(group.empty() ? kind : kind + "." + group) + "/" + str(r, {"name"});
  }
  return "<none>";
}

Cells controller_revision_cells(const json& o, WallTime now) {
  return {name_of(o), controller_of(o), num(o, {"revision"}), age_of(o, now)};
}

// The first condition of a type decides, as upstream's hasJobCondition.
bool job_condition(const json& job, const char* type) {
  const json& conds = at(job, {"status", "conditions"});
  if (conds.is_array())
    for (const auto& c : conds)
      if (str(c, {"type"}) == type) return str(c, {"status"}) == "True";
  return false;
}

std::string job_status(const json& job) {
  if (job_condition(job, "Complete")) return "Complete";
  if (job_condition(job, "Failed")) return "Failed";
  if (deleting(job)) return "Terminating";
  if (job_condition(job, "Suspended")) return "Suspended";
  if (job_condition(job, "FailureTarget")) return "FailureTarget";
  return "Running";
}

std::string job_duration(const json& job, WallTime now) {
  auto start = parse_rfc3339(str(job, {"status", "startTime"}));
  if (!start) return "";
  auto end = parse_rfc3339(str(job, {"status", "completionTime"}));
  return human_duration(
      std::chrono::duration_cast<std::chrono::seconds>((end ? *end : now) - *start));
}

Cells job_cells(const json& o, WallTime now) {
  long long succeeded = num(o, {"status", "succeeded"});
  std::string completions;
  if (at(o, {"spec", "completions"}).is_number_integer()) {
    completions = std::to_string(succeeded) + "/" + std::to_string(num(o, {"spec", "completions"}));
  } else {
    long long parallelism = num(o, {"spec", "parallelism"});
    completions = std::to_string(succeeded) + "/1";
    if (parallelism > 1) completions += " of " + std::to_string(parallelism);
  }
  auto [names, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),     job_status(o),
          completions,    job_duration(o, now),
          age_of(o, now), names,
          images,         format_label_selector(at(o, {"spec", "selector"}))};
}

std::string bool_text(const json& v) {
  if (!v.is_boolean()) return "<unset>";
  return v.get<bool>() ? "True" : "False";
}

Cells cronjob_cells(const json& o, WallTime now) {
  const json& last = at(o, {"status", "lastScheduleTime"});
  const json& job_spec = at(o, {"spec", "jobTemplate", "spec"});
  auto [names, images] = containers_images(at(job_spec, {"template", "spec"}));
  return {name_of(o),
          str(o, {"spec", "schedule"}),
          str(o, {"spec", "timeZone"}, "<none>"),
          bool_text(at(o, {"spec", "suspend"})),
          count(o, {"status", "active"}),
          last.is_null() ? "<none>" : since(last, now),
          age_of(o, now),
          names,
          images,
          format_label_selector(at(job_spec, {"selector"}))};
}

// --- HorizontalPodAutoscaler (autoscaling/v2 and v1) --------------------------------------------

std::string percent(const json& v) { return std::to_string(v.get<long long>()) + "%"; }

// One metric as "current/target", following upstream's formatHPAMetrics for each source type.
std::string hpa_metric(const json& spec, const json& status) {
  std::string type = str(spec, {"type"});
  auto value_or_avg = [&](const char* source) {
    const json& target = at(spec, {source, "target"});
    if (!at(target, {"averageValue"}).is_null()) {
      const json& cur = at(status, {source, "current", "averageValue"});
      return (cur.is_null() ? "<unknown>" : quantity(cur)) + "/" +
             quantity(at(target, {"averageValue"})) + " (avg)";
    }
    const json& cur = at(status, {source, "current", "value"});
    bool have = at(status, {source}).is_object();
    return (have ? quantity(cur) : "<unknown>") + "/" + quantity(at(target, {"value"}));
  };
  auto resource = [&](const char* source) {
    const json& target = at(spec, {source, "target"});
    std::string name = str(spec, {source, "name"});
    if (!at(target, {"averageValue"}).is_null()) {
      const json& cur = at(status, {source, "current", "averageValue"});
      bool have = at(status, {source}).is_object();
      return name + ": " + (have ? quantity(cur) : "<unknown>") + "/" +
             quantity(at(target, {"averageValue"}));
    }
    const json& cur = at(status, {source, "current", "averageUtilization"});
    const json& want = at(target, {"averageUtilization"});
    return name + ": " + (cur.is_number_integer() ? percent(cur) : "<unknown>") + "/" +
           (want.is_number_integer() ? percent(want) : "<auto>");
  };
  if (type == "External") return value_or_avg("external");
  if (type == "Pods") {
    const json& cur = at(status, {"pods", "current", "averageValue"});
    bool have = at(status, {"pods"}).is_object();
    return (have ? quantity(cur) : "<unknown>") + "/" +
           quantity(at(spec, {"pods", "target", "averageValue"}));
  }
  if (type == "Object") return value_or_avg("object");
  if (type == "Resource") return resource("resource");
  if (type == "ContainerResource") return resource("containerResource");
  return "<unknown type>";
}

// autoscaling/v1 keeps only a CPU target; shape it as the v2 metric it converts to.
void v1_metrics(const json& o, json& specs, json& statuses) {
  const json& target = at(o, {"spec", "targetCPUUtilizationPercentage"});
  if (!target.is_number_integer()) return;
  specs =
      json::array({{{"type", "Resource"},
                    {"resource",
                     {{"name", "cpu"},
                      {"target", {{"type", "Utilization"}, {"averageUtilization", target}}}}}}});
  const json& current = at(o, {"status", "currentCPUUtilizationPercentage"});
  if (current.is_number_integer()) {
    statuses = json::array(
        {{{"type", "Resource"},
          {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", current}}}}}}});
  }
}

std::string hpa_targets(const json& o) {
  json specs = at(o, {"spec", "metrics"});
  json statuses = at(o, {"status", "currentMetrics"});
  if (!specs.is_array()) v1_metrics(o, specs, statuses);
  if (!specs.is_array() || specs.empty()) return "<none>";
  std::vector<std::string> all;
  for (size_t i = 0; i < specs.size(); ++i) {
    const json& status = statuses.is_array() && i < statuses.size() ? statuses[i] : json();
    all.push_back(hpa_metric(specs[i], status));
  }
  if (all.size() <= 2) return join(all, ", ");
  return all[0] + ", " + all[1] + " + " + std::to_string(all.size() - 2) + " more...";
}

Cells hpa_cells(const json& o, WallTime now) {
  const json& min = at(o, {"spec", "minReplicas"});
  return {
      name_of(o),
      str(o, {"spec", "scaleTargetRef", "kind"}) + "/" + str(o, {"spec", "scaleTargetRef", "name"}),
      hpa_targets(o),
      min.is_number_integer() ? std::to_string(min.get<long long>()) : "<unset>",
      num(o, {"spec", "maxReplicas"}),
      num(o, {"status", "currentReplicas"}),
      age_of(o, now)};
}

Cells pdb_cells(const json& o, WallTime now) {
  const json& min = at(o, {"spec", "minAvailable"});
  const json& max = at(o, {"spec", "maxUnavailable"});
  return {name_of(o), min.is_null() ? "N/A" : int_or_string(min),
          max.is_null() ? "N/A" : int_or_string(max), num(o, {"status", "disruptionsAllowed"}),
          age_of(o, now)};
}

}  // namespace

void add_workload_printers(PrinterMap& m) {
  m[{"apps", "Deployment"}] = {
      {name_column(), text("Ready", "Ready pods out of desired pods."),
       text("Up-to-date", "Pods that run the current template."),
       text("Available", "Pods available for at least minReadySeconds."), age_column(),
       containers_column(), images_column(), selector_column()},
      deployment_cells};
  m[{"apps", "ReplicaSet"}] = {
      {name_column(), integer("Desired", "Desired number of pods."),
       integer("Current", "Current number of pods."), integer("Ready", "Ready pods."), age_column(),
       containers_column(), images_column(), selector_column()},
      replicaset_cells};
  m[{"apps", "DaemonSet"}] = {
      {name_column(), integer("Desired", "Nodes that should run the daemon pod."),
       integer("Current", "Nodes that run the daemon pod."),
       integer("Ready", "Nodes whose daemon pod is ready."),
       integer("Up-to-date", "Nodes that run the current template."),
       integer("Available", "Nodes whose daemon pod is available."),
       text("Node Selector", "Node selector of the pod template."), age_column(),
       containers_column(), images_column(), selector_column()},
      daemonset_cells};
  m[{"apps", "StatefulSet"}] = {{name_column(), text("Ready", "Ready pods out of desired pods."),
                                 age_column(), containers_column(), images_column()},
                                statefulset_cells};
  m[{"apps", "ControllerRevision"}] = {
      {name_column(), text("Controller", "The object that controls this revision."),
       text("Revision", "The revision number."), age_column()},
      controller_revision_cells};
  m[{"batch", "Job"}] = {{name_column(), text("Status", "Complete, Failed, Running, Suspended..."),
                          text("Completions", "Succeeded pods out of the completions wanted."),
                          text("Duration", "How long the job ran (or has been running)."),
                          age_column(), containers_column(), images_column(), selector_column()},
                         job_cells};
  m[{"batch", "CronJob"}] = {
      {name_column(), text("Schedule", "The cron schedule."),
       text("Timezone", "Time zone of the schedule."),
       boolean("Suspend", "Whether later runs are suspended."),
       integer("Active", "Jobs running now."),
       text("Last Schedule", "Time since a job was last scheduled."), age_column(),
       containers_column(), images_column(), selector_column()},
      cronjob_cells};
  m[{"autoscaling", "HorizontalPodAutoscaler"}] = {
      {name_column(), text("Reference", "The scaled object."),
       text("Targets", "Current and target metric values."),
       text("MinPods", "Lower limit of replicas."), text("MaxPods", "Upper limit of replicas."),
       text("Replicas", "Current number of replicas."), age_column()},
      hpa_cells};
  m[{"policy", "PodDisruptionBudget"}] = {
      {name_column(), text("Min Available", "Pods that must stay available."),
       text("Max Unavailable", "Pods that may be unavailable."),
       integer("Allowed Disruptions", "Pods that may be disrupted now."), age_column()},
      pdb_cells};
}

}  // namespace k3c::apiserver::printers

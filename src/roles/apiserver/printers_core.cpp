// Printers of the core group (v1): pods, services, nodes, events, volumes and the small kinds.
// Column names, types and priorities and the cell rules follow upstream's v1.32 printers.
#include <optional>
#include <set>

#include "api/version_conversion.h"
#include "core/ids.h"
#include "core/text.h"
#include "roles/apiserver/printer_cells.h"

namespace k3c::apiserver::printers {
namespace {

// --- Pod --------------------------------------------------------------------------------------

bool restartable_init(const json& pod, const std::string& name) {
  const json& ics = at(pod, {"spec", "initContainers"});
  if (!ics.is_array()) return false;
  for (const auto& c : ics)
    if (str(c, {"name"}) == name) return str(c, {"restartPolicy"}) == "Always";
  return false;
}

bool has_condition(const json& pod, const char* type) {
  const json& conds = at(pod, {"status", "conditions"});
  if (!conds.is_array()) return false;
  for (const auto& c : conds)
    if (str(c, {"type"}) == type && str(c, {"status"}) == "True") return true;
  return false;
}

// A container's last termination time, when it has one.
std::optional<WallTime> last_termination(const json& status) {
  const json& t = at(status, {"lastState", "terminated", "finishedAt"});
  return t.is_string() ? parse_rfc3339(t.get_ref<const std::string&>()) : std::nullopt;
}

std::string exit_reason(const json& term, const char* prefix) {
  if (!str(term, {"reason"}).empty()) return prefix + str(term, {"reason"});
  if (num(term, {"signal"}) != 0)
    return prefix + ("Signal:" + std::to_string(num(term, {"signal"})));
  return prefix + ("ExitCode:" + std::to_string(num(term, {"exitCode"})));
}

// Restarts, the time of the last one, ready and total containers, and the STATUS text.
struct PodSummary {
  long long restarts = 0;
  std::optional<WallTime> last_restart;
  long long ready = 0;
  long long total = 0;
  std::string reason;
};

void note_restart(std::optional<WallTime>& latest, const json& status) {
  auto t = last_termination(status);
  if (t && (!latest || *latest < *t)) latest = t;
}

// Walks the init containers: sets `s.reason` while the pod initializes; returns whether it
// still does.
bool init_containers(const json& pod, PodSummary& s, PodSummary& sidecars) {
  const json& statuses = at(pod, {"status", "initContainerStatuses"});
  if (!statuses.is_array()) return false;
  long long i = 0;
  for (const auto& c : statuses) {
    bool sidecar = restartable_init(pod, str(c, {"name"}));
    s.restarts += num(c, {"restartCount"});
    note_restart(s.last_restart, c);
    if (sidecar) {
      sidecars.restarts += num(c, {"restartCount"});
      note_restart(sidecars.last_restart, c);
    }
    const json& term = at(c, {"state", "terminated"});
    const json& wait = at(c, {"state", "waiting"});
    if (term.is_object() && num(term, {"exitCode"}) == 0) {
      ++i;
      continue;
    }
    if (sidecar && flag(c, {"started"})) {
      if (flag(c, {"ready"})) ++s.ready;
      ++i;
      continue;
    }
    if (term.is_object()) {
      s.reason = exit_reason(term, "Init:");
    } else if (wait.is_object() && !str(wait, {"reason"}).empty() &&
               str(wait, {"reason"}) != "PodInitializing") {
      s.reason = "Init:" + str(wait, {"reason"});
    } else {
      s.reason = "Init:" + std::to_string(i) + "/" +
                 std::to_string(count(pod, {"spec", "initContainers"}));
    }
    return true;
  }
  return false;
}

PodSummary summarize_pod(const json& pod) {
  PodSummary s, sidecars;
  s.total = count(pod, {"spec", "containers"});
  const json& ics = at(pod, {"spec", "initContainers"});
  if (ics.is_array())
    for (const auto& c : ics)
      if (str(c, {"restartPolicy"}) == "Always") ++s.total;
  std::string phase = str(pod, {"status", "phase"});
  s.reason = str(pod, {"status", "reason"}, phase);
  if (s.reason.empty()) s.reason = phase;
  const json& conds = at(pod, {"status", "conditions"});
  if (conds.is_array()) {
    for (const auto& c : conds)
      if (str(c, {"type"}) == "PodScheduled" && str(c, {"reason"}) == "SchedulingGated")
        s.reason = "SchedulingGated";
  }
  bool initializing = init_containers(pod, s, sidecars);
  if (!initializing || has_condition(pod, "Initialized")) {
    s.restarts = sidecars.restarts;
    s.last_restart = sidecars.last_restart;
    bool has_running = false;
    const json& cs = at(pod, {"status", "containerStatuses"});
    if (cs.is_array()) {
      for (auto it = cs.rbegin(); it != cs.rend(); ++it) {
        s.restarts += num(*it, {"restartCount"});
        note_restart(s.last_restart, *it);
        const json& wait = at(*it, {"state", "waiting"});
        const json& term = at(*it, {"state", "terminated"});
        if (wait.is_object() && !str(wait, {"reason"}).empty()) {
          s.reason = str(wait, {"reason"});
        } else if (term.is_object()) {
          s.reason = exit_reason(term, "");
        } else if (flag(*it, {"ready"}) && at(*it, {"state", "running"}).is_object()) {
          has_running = true;
          ++s.ready;
        }
      }
    }
    if (s.reason == "Completed" && has_running)
      s.reason = has_condition(pod, "Ready") ? "Running" : "NotReady";
  }
  if (deleting(pod)) {
    if (str(pod, {"status", "reason"}) == "NodeLost") {
      s.reason = "Unknown";
    } else if (phase != "Succeeded" && phase != "Failed") {
      s.reason = "Terminating";
    }
  }
  return s;
}

std::string readiness_gates(const json& pod) {
  const json& gates = at(pod, {"spec", "readinessGates"});
  if (!gates.is_array() || gates.empty()) return "<none>";
  const json& conds = at(pod, {"status", "conditions"});
  long long true_count = 0;
  for (const auto& g : gates) {
    if (!conds.is_array()) break;
    for (const auto& c : conds) {
      if (str(c, {"type"}) == str(g, {"conditionType"})) {
        if (str(c, {"status"}) == "True") ++true_count;
        break;
      }
    }
  }
  return std::to_string(true_count) + "/" + std::to_string(gates.size());
}

Cells pod_cells(const json& pod, WallTime now) {
  PodSummary s = summarize_pod(pod);
  std::string restarts = std::to_string(s.restarts);
  if (s.restarts != 0 && s.last_restart) {
    restarts +=
        " (" +
        human_duration(std::chrono::duration_cast<std::chrono::seconds>(now - *s.last_restart)) +
        " ago)";
  }
  // The primary IP: status.podIP wins over podIPs, as in upstream's v1 -> internal conversion.
  std::string ip = str(pod, {"status", "podIP"});
  const json& ips = at(pod, {"status", "podIPs"});
  if (ip.empty() && ips.is_array() && !ips.empty()) ip = str(ips[0], {"ip"});
  return {name_of(pod),
          std::to_string(s.ready) + "/" + std::to_string(s.total),
          s.reason,
          restarts,
          age_of(pod, now),
          ip.empty() ? "<none>" : ip,
          str(pod, {"spec", "nodeName"}, "<none>"),
          str(pod, {"status", "nominatedNodeName"}, "<none>"),
          readiness_gates(pod)};
}

json pod_conditions(const json& pod) {
  std::string phase = str(pod, {"status", "phase"});
  if (phase != "Succeeded" && phase != "Failed") return nullptr;
  return json::array({{{"type", "Completed"},
                       {"status", "True"},
                       {"reason", phase},
                       {"message", phase == "Succeeded" ? "The pod has completed successfully."
                                                        : "The pod failed."}}});
}

Cells pod_template_cells(const json& o, WallTime) {
  auto [names, images] = containers_images(at(o, {"template", "spec"}));
  return {name_of(o), names, images, format_labels(at(o, {"template", "metadata", "labels"}))};
}

Cells replication_controller_cells(const json& o, WallTime now) {
  auto [names, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          num(o, {"spec", "replicas"}, 1),
          num(o, {"status", "replicas"}),
          num(o, {"status", "readyReplicas"}),
          age_of(o, now),
          names,
          images,
          format_labels(at(o, {"spec", "selector"}))};
}

// --- Service and Endpoints --------------------------------------------------------------------

std::vector<std::string> strings_of(const json& list) {
  std::vector<std::string> out;
  if (list.is_array())
    for (const auto& v : list)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::string external_ip(const json& svc) {
  std::string type = str(svc, {"spec", "type"}, "ClusterIP");
  std::vector<std::string> external = strings_of(at(svc, {"spec", "externalIPs"}));
  if (type == "ClusterIP" || type == "NodePort")
    return external.empty() ? "<none>" : join(external);
  if (type == "ExternalName") return str(svc, {"spec", "externalName"});
  if (type != "LoadBalancer") return "<unknown>";
  std::set<std::string> lb;  // sorted and unique, as upstream's string set
  const json& ingress = at(svc, {"status", "loadBalancer", "ingress"});
  if (ingress.is_array()) {
    for (const auto& i : ingress) {
      std::string v = str(i, {"ip"});
      if (v.empty()) v = str(i, {"hostname"});
      if (!v.empty()) lb.insert(v);
    }
  }
  std::vector<std::string> all(lb.begin(), lb.end());
  all.insert(all.end(), external.begin(), external.end());
  return all.empty() ? "<pending>" : join(all);
}

std::string service_ports(const json& svc) {
  const json& ports = at(svc, {"spec", "ports"});
  if (!ports.is_array() || ports.empty()) return "<none>";
  std::vector<std::string> parts;
  for (const auto& p : ports) {
    std::string s = std::to_string(num(p, {"port"}));
    if (num(p, {"nodePort"}) > 0) s += ":" + std::to_string(num(p, {"nodePort"}));
    parts.push_back(s + "/" + str(p, {"protocol"}, "TCP"));
  }
  return join(parts);
}

Cells service_cells(const json& o, WallTime now) {
  std::string cluster_ip = "<none>";
  const json& ips = at(o, {"spec", "clusterIPs"});
  if (ips.is_array() && !ips.empty() && ips[0].is_string()) {
    cluster_ip = ips[0].get<std::string>();
  } else if (!str(o, {"spec", "clusterIP"}).empty()) {
    cluster_ip = str(o, {"spec", "clusterIP"});
  }
  return {name_of(o),
          str(o, {"spec", "type"}, "ClusterIP"),
          cluster_ip,
          external_ip(o),
          service_ports(o),
          age_of(o, now),
          format_labels(at(o, {"spec", "selector"}))};
}

std::string host_port(const std::string& ip, long long port) {
  bool v6 = ip.find(':') != std::string::npos;
  return (v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
}

std::string format_endpoints(const json& o) {
  const json& subsets = at(o, {"subsets"});
  if (!subsets.is_array() || subsets.empty()) return "<none>";
  std::vector<std::string> all;
  for (const auto& ss : subsets) {
    const json& addrs = at(ss, {"addresses"});
    if (!addrs.is_array()) continue;
    const json& ports = at(ss, {"ports"});
    if (!ports.is_array() || ports.empty()) {
      for (const auto& a : addrs) all.push_back(str(a, {"ip"}));
      continue;
    }
    for (const auto& p : ports)
      for (const auto& a : addrs) all.push_back(host_port(str(a, {"ip"}), num(p, {"port"})));
  }
  return list_with_more(all, 3, "");
}

Cells endpoints_cells(const json& o, WallTime now) {
  return {name_of(o), format_endpoints(o), age_of(o, now)};
}

// --- Node -------------------------------------------------------------------------------------

std::string first_address(const json& node, const char* type) {
  const json& addrs = at(node, {"status", "addresses"});
  if (addrs.is_array())
    for (const auto& a : addrs)
      if (str(a, {"type"}) == type) return str(a, {"address"});
  return "<none>";
}

Cells node_cells(const json& o, WallTime now) {
  std::string status = "Unknown";
  const json& conds = at(o, {"status", "conditions"});
  if (conds.is_array()) {
    for (const auto& c : conds)
      if (str(c, {"type"}) == "Ready") status = str(c, {"status"}) == "True" ? "Ready" : "NotReady";
  }
  if (flag(o, {"spec", "unschedulable"})) status += ",SchedulingDisabled";
  std::set<std::string> roles;
  const json& labels = at(o, {"metadata", "labels"});
  if (labels.is_object()) {
    const std::string prefix = "node-role.kubernetes.io/";
    for (auto& [k, v] : labels.items()) {
      if (k.rfind(prefix, 0) == 0 && k.size() > prefix.size())
        roles.insert(k.substr(prefix.size()));
      if (k == "kubernetes.io/role" && v.is_string() && !v.get<std::string>().empty())
        roles.insert(v.get<std::string>());
    }
  }
  auto info = [&](const char* field) {
    std::string v = str(o, {"status", "nodeInfo", field});
    return v.empty() ? std::string("<unknown>") : v;
  };
  return {name_of(o),
          status,
          roles.empty() ? "<none>" : join({roles.begin(), roles.end()}),
          age_of(o, now),
          str(o, {"status", "nodeInfo", "kubeletVersion"}),
          first_address(o, "InternalIP"),
          first_address(o, "ExternalIP"),
          info("osImage"),
          info("kernelVersion"),
          info("containerRuntimeVersion")};
}

// --- Event (core and events.k8s.io) ----------------------------------------------------------

std::string first_non_empty(const std::string& a, const std::string& b) {
  return a.empty() ? b : a;
}

Cells event_cells(const json& o, WallTime now) {
  std::string first = at(o, {"firstTimestamp"}).is_string() ? since(at(o, {"firstTimestamp"}), now)
                                                            : since(at(o, {"eventTime"}), now);
  std::string last =
      at(o, {"lastTimestamp"}).is_string() ? since(at(o, {"lastTimestamp"}), now) : first;
  long long n = num(o, {"count"});
  if (at(o, {"series"}).is_object()) {
    last = since(at(o, {"series", "lastObservedTime"}), now);
    n = num(o, {"series", "count"});
  } else if (n == 0) {
    n = 1;  // singleton events of the new API carry no count
  }
  std::string target = lower(str(o, {"involvedObject", "kind"}));
  if (!str(o, {"involvedObject", "name"}).empty())
    target += "/" + str(o, {"involvedObject", "name"});
  std::string component =
      first_non_empty(str(o, {"source", "component"}), str(o, {"reportingComponent"}));
  std::string instance = first_non_empty(str(o, {"source", "host"}), str(o, {"reportingInstance"}));
  std::string source = instance.empty() ? component : component + ", " + instance;
  return {last,
          str(o, {"type"}),
          str(o, {"reason"}),
          target,
          str(o, {"involvedObject", "fieldPath"}),
          source,
          std::string(trim_space(str(o, {"message"}))),
          first,
          n,
          name_of(o)};
}

// An events.k8s.io/v1 Event under the core field names (upstream prints both groups from the
// same internal type).
Cells events_v1_cells(const json& o, WallTime now) {
  json core = o;
  if (!core.contains("apiVersion")) core["apiVersion"] = "events.k8s.io/v1";
  if (!core.contains("kind")) core["kind"] = "Event";
  (void)api::convert_to_version(core, "v1");
  return event_cells(core, now);
}

// --- Small kinds ------------------------------------------------------------------------------

Cells namespace_cells(const json& o, WallTime now) {
  return {name_of(o), str(o, {"status", "phase"}), age_of(o, now)};
}

Cells configmap_cells(const json& o, WallTime now) {
  return {name_of(o), count(o, {"data"}) + count(o, {"binaryData"}), age_of(o, now)};
}

Cells secret_cells(const json& o, WallTime now) {
  return {name_of(o), str(o, {"type"}), count(o, {"data"}), age_of(o, now)};
}

Cells serviceaccount_cells(const json& o, WallTime now) {
  return {name_of(o), count(o, {"secrets"}), age_of(o, now)};
}

Cells component_status_cells(const json& o, WallTime) {
  std::string status = "Unknown", message, error;
  const json& conds = at(o, {"conditions"});
  if (conds.is_array()) {
    for (const auto& c : conds) {
      if (str(c, {"type"}) != "Healthy") continue;
      status = str(c, {"status"}) == "True" ? "Healthy" : "Unhealthy";
      message = str(c, {"message"});
      error = str(c, {"error"});
      break;
    }
  }
  return {name_of(o), status, message, error};
}

Cells resource_quota_cells(const json& o, WallTime now) {
  std::vector<std::string> requests, limits;
  const json& hard = at(o, {"status", "hard"});
  if (hard.is_object()) {
    for (auto& [resource, value] : hard.items()) {  // sorted by name, as upstream sorts them
      std::string used = quantity(at(o, {"status", "used", resource.c_str()}));
      std::string entry = resource + ": " + (used.empty() ? "0" : used) + "/" + quantity(value);
      (resource.rfind("limits.", 0) == 0 ? limits : requests).push_back(entry);
    }
  }
  return {name_of(o), age_of(o, now), join(requests, ", "), join(limits, ", ")};
}

// --- Volumes ----------------------------------------------------------------------------------

std::string access_modes(const json& modes) {
  std::set<std::string> have;
  if (modes.is_array())
    for (const auto& m : modes)
      if (m.is_string()) have.insert(m.get<std::string>());
  std::vector<std::string> out;
  static const std::pair<const char*, const char*> order[] = {{"ReadWriteOnce", "RWO"},
                                                              {"ReadOnlyMany", "ROX"},
                                                              {"ReadWriteMany", "RWX"},
                                                              {"ReadWriteOncePod", "RWOP"}};
  for (const auto& [mode, abbrev] : order)
    if (have.count(mode)) out.push_back(abbrev);
  return join(out);
}

// The storage class: the beta annotation wins over the field, as upstream's helpers read it.
std::string storage_class(const json& o) {
  const json& beta = at(o, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
  return beta.is_string() ? beta.get<std::string>() : str(o, {"spec", "storageClassName"});
}

Cells persistent_volume_cells(const json& o, WallTime now) {
  std::string claim;
  if (at(o, {"spec", "claimRef"}).is_object())
    claim = str(o, {"spec", "claimRef", "namespace"}) + "/" + str(o, {"spec", "claimRef", "name"});
  std::string phase = deleting(o) ? "Terminating" : str(o, {"status", "phase"});
  return {name_of(o),
          quantity(at(o, {"spec", "capacity", "storage"})),
          access_modes(at(o, {"spec", "accessModes"})),
          str(o, {"spec", "persistentVolumeReclaimPolicy"}),
          phase,
          claim,
          storage_class(o),
          str(o, {"spec", "volumeAttributesClassName"}, "<unset>"),
          str(o, {"status", "reason"}),
          age_of(o, now),
          str(o, {"spec", "volumeMode"}, "<unset>")};
}

Cells persistent_volume_claim_cells(const json& o, WallTime now) {
  std::string phase = deleting(o) ? "Terminating" : str(o, {"status", "phase"});
  std::string capacity, modes;
  std::string volume = str(o, {"spec", "volumeName"});
  if (!volume.empty()) {
    capacity = quantity(at(o, {"status", "capacity", "storage"}));
    modes = access_modes(at(o, {"status", "accessModes"}));
  }
  return {name_of(o),
          phase,
          volume,
          capacity,
          modes,
          storage_class(o),
          str(o, {"spec", "volumeAttributesClassName"}, "<unset>"),
          age_of(o, now),
          str(o, {"spec", "volumeMode"}, "<unset>")};
}

std::vector<Column> event_columns() {
  return {text("Last Seen", "Time since the event was last seen."),
          text("Type", "Normal or Warning."),
          text("Reason", "Short machine-readable reason for the event."),
          text("Object", "The object the event is about."),
          text("Subobject", "The part of the object the event is about.", 1),
          text("Source", "The component (and host) that reported the event.", 1),
          text("Message", "Human-readable description of the event."),
          text("First Seen", "Time since the event was first seen.", 1),
          text("Count", "How many times the event has occurred.", 1),
          {"Name", "string", "name", "The name of the event.", 1}};
}

}  // namespace

void add_core_printers(PrinterMap& m) {
  m[{"", "Pod"}] = {
      {name_column(), text("Ready", "Ready containers out of all containers."),
       text("Status", "Summary of the pod's phase and container states."),
       text("Restarts", "Container restarts, and how long ago the last one was."), age_column(),
       text("IP", "The pod's first IP address.", 1), text("Node", "The node the pod runs on.", 1),
       text("Nominated Node", "The node nominated by preemption.", 1),
       text("Readiness Gates", "Readiness gates that are true, of all.", 1)},
      pod_cells,
      pod_conditions};
  m[{"", "PodTemplate"}] = {{name_column(), text("Containers", "Container names of the template."),
                             text("Images", "Container images of the template."),
                             text("Pod Labels", "Labels of the pod template.")},
                            pod_template_cells};
  m[{"", "ReplicationController"}] = {
      {name_column(), integer("Desired", "Desired number of pods."),
       integer("Current", "Current number of pods."), integer("Ready", "Ready pods."), age_column(),
       text("Containers", "Container names of the pod template.", 1),
       text("Images", "Container images of the pod template.", 1),
       text("Selector", "Label selector of the pods.", 1)},
      replication_controller_cells};
  m[{"", "Service"}] = {{name_column(), text("Type", "How the service is exposed."),
                         text("Cluster-IP", "The service's cluster IP."),
                         text("External-IP", "External or load balancer addresses."),
                         text("Port(s)", "Service ports (and node ports)."), age_column(),
                         text("Selector", "Label selector of the backing pods.", 1)},
                        service_cells};
  m[{"", "Endpoints"}] = {
      {name_column(), text("Endpoints", "Addresses and ports of the endpoints."), age_column()},
      endpoints_cells};
  m[{"", "Node"}] = {{name_column(), text("Status", "Readiness of the node."),
                      text("Roles", "Roles from the node-role labels."), age_column(),
                      text("Version", "Kubelet version."),
                      text("Internal-IP", "First internal address of the node.", 1),
                      text("External-IP", "First external address of the node.", 1),
                      text("OS-Image", "Operating system image of the node.", 1),
                      text("Kernel-Version", "Kernel version of the node.", 1),
                      text("Container-Runtime", "Container runtime and its version.", 1)},
                     node_cells};
  m[{"", "Event"}] = {event_columns(), event_cells};
  m[{"events.k8s.io", "Event"}] = {event_columns(), events_v1_cells};
  m[{"", "Namespace"}] = {{name_column(), text("Status", "Phase of the namespace."), age_column()},
                          namespace_cells};
  m[{"", "ConfigMap"}] = {
      {name_column(), text("Data", "Number of data and binaryData entries."), age_column()},
      configmap_cells};
  m[{"", "Secret"}] = {{name_column(), text("Type", "The secret's type."),
                        text("Data", "Number of data entries."), age_column()},
                       secret_cells};
  m[{"", "ServiceAccount"}] = {
      {name_column(), text("Secrets", "Number of secrets listed."), age_column()},
      serviceaccount_cells};
  m[{"", "ComponentStatus"}] = {{name_column(), text("Status", "Health of the component."),
                                 text("Message", "Message of the health condition."),
                                 text("Error", "Error of the health condition.")},
                                component_status_cells};
  m[{"", "ResourceQuota"}] = {
      {name_column(), age_column(), text("Request", "Used and hard quota of requests and counts."),
       text("Limit", "Used and hard quota of limits.")},
      resource_quota_cells};
  m[{"", "PersistentVolume"}] = {
      {name_column(), text("Capacity", "Storage capacity."),
       text("Access Modes", "Access modes (RWO, ROX, RWX, RWOP)."),
       text("Reclaim Policy", "What happens to the volume when released."),
       text("Status", "Phase of the volume."), text("Claim", "The claim bound to the volume."),
       text("StorageClass", "Storage class of the volume."),
       text("VolumeAttributesClass", "Volume attributes class of the volume."),
       text("Reason", "Reason for the volume's phase."), age_column(),
       text("VolumeMode", "Filesystem or Block.", 1)},
      persistent_volume_cells};
  m[{"", "PersistentVolumeClaim"}] = {
      {name_column(), text("Status", "Phase of the claim."),
       text("Volume", "The volume bound to the claim."),
       text("Capacity", "Capacity of the bound volume."),
       text("Access Modes", "Access modes of the bound volume."),
       text("StorageClass", "Storage class of the claim."),
       text("VolumeAttributesClass", "Volume attributes class of the claim."), age_column(),
       text("VolumeMode", "Filesystem or Block.", 1)},
      persistent_volume_claim_cells};
}

}  // namespace k3c::apiserver::printers

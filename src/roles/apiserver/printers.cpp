// Column printers per kind, following upstream's server-side printers (column names,
// priorities and cell rules). Kinds without one here get Name and Age.
#include <map>

#include "roles/apiserver/table.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

const json& at(const json& j, std::initializer_list<const char*> path) {
  static const json null_value;
  const json* cur = &j;
  for (const char* p : path) {
    if (!cur->is_object()) return null_value;
    auto it = cur->find(p);
    if (it == cur->end()) return null_value;
    cur = &*it;
  }
  return *cur;
}

std::string str(const json& j, std::initializer_list<const char*> path, std::string fallback = "") {
  const json& v = at(j, path);
  return v.is_string() ? v.get<std::string>() : fallback;
}

long long num(const json& j, std::initializer_list<const char*> path) {
  const json& v = at(j, path);
  return v.is_number_integer() ? v.get<long long>() : 0;
}

std::string name_of(const json& o) { return str(o, {"metadata", "name"}); }

Column name_column() {
  return {"Name", "string", "name", "Name must be unique within a namespace.", 0};
}
Column age_column() {
  return {
      "Age", "string", "",
      "CreationTimestamp is a timestamp representing the server time when this object was created.",
      0};
}
Column text(std::string name, std::string description, int priority = 0) {
  return {std::move(name), "string", "", std::move(description), priority};
}
Column integer(std::string name, std::string description, int priority = 0) {
  return {std::move(name), "integer", "", std::move(description), priority};
}

std::string join(const std::vector<std::string>& parts, const char* sep = ",") {
  std::string s;
  for (const auto& p : parts) {
    if (!s.empty()) s += sep;
    s += p;
  }
  return s;
}

std::string selector_string(const json& match_labels) {
  if (!match_labels.is_object() || match_labels.empty()) return "<none>";
  std::vector<std::string> parts;
  for (auto& [k, v] : match_labels.items())
    parts.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  return join(parts);
}

// Containers and images of a pod template, for -o wide.
std::pair<std::string, std::string> containers_images(const json& pod_spec) {
  std::vector<std::string> names, images;
  const json& cs = at(pod_spec, {"containers"});
  if (cs.is_array()) {
    for (const auto& c : cs) {
      names.push_back(str(c, {"name"}));
      images.push_back(str(c, {"image"}));
    }
  }
  return {join(names), join(images)};
}

// The STATUS column of a pod, following upstream's printPod rules in their main lines.
std::string pod_reason(const json& pod) {
  std::string reason = str(pod, {"status", "phase"});
  if (!str(pod, {"status", "reason"}).empty()) reason = str(pod, {"status", "reason"});
  const json& init = at(pod, {"status", "initContainerStatuses"});
  const json& specInit = at(pod, {"spec", "initContainers"});
  bool initializing = false;
  if (init.is_array()) {
    int i = 0;
    for (const auto& c : init) {
      const json& term = at(c, {"state", "terminated"});
      const json& wait = at(c, {"state", "waiting"});
      if (term.is_object() && num(term, {"exitCode"}) == 0) {
        ++i;
        continue;
      }
      initializing = true;
      if (term.is_object()) {
        reason = "Init:" + (str(term, {"reason"}).empty()
                                ? "ExitCode:" + std::to_string(num(term, {"exitCode"}))
                                : str(term, {"reason"}));
      } else if (wait.is_object() && !str(wait, {"reason"}).empty() &&
                 str(wait, {"reason"}) != "PodInitializing") {
        reason = "Init:" + str(wait, {"reason"});
      } else {
        reason = "Init:" + std::to_string(i) + "/" +
                 std::to_string(specInit.is_array() ? specInit.size() : 0);
      }
      break;
    }
  }
  if (!initializing) {
    const json& cs = at(pod, {"status", "containerStatuses"});
    bool has_running = false;
    if (cs.is_array()) {
      for (auto it = cs.rbegin(); it != cs.rend(); ++it) {
        const json& wait = at(*it, {"state", "waiting"});
        const json& term = at(*it, {"state", "terminated"});
        if (wait.is_object() && !str(wait, {"reason"}).empty()) {
          reason = str(wait, {"reason"});
        } else if (term.is_object()) {
          reason = str(term, {"reason"}).empty()
                       ? "ExitCode:" + std::to_string(num(term, {"exitCode"}))
                       : str(term, {"reason"});
        } else if (at(*it, {"state", "running"}).is_object() && at(*it, {"ready"}) == true) {
          has_running = true;
        }
      }
    }
    if (reason == "Completed" && has_running) reason = "Running";
  }
  if (at(pod, {"metadata", "deletionTimestamp"}).is_string()) {
    reason = str(pod, {"status", "reason"}) == "NodeLost" ? "Unknown" : "Terminating";
  }
  return reason;
}

std::vector<json> pod_cells(const json& pod, Clock::time_point now) {
  const json& spec_containers = at(pod, {"spec", "containers"});
  const json& cs = at(pod, {"status", "containerStatuses"});
  long long total = spec_containers.is_array() ? static_cast<long long>(spec_containers.size()) : 0;
  long long ready = 0, restarts = 0;
  if (cs.is_array()) {
    for (const auto& c : cs) {
      if (at(c, {"ready"}) == true) ++ready;
      restarts += num(c, {"restartCount"});
    }
  }
  std::string gates = "<none>";
  const json& rg = at(pod, {"spec", "readinessGates"});
  if (rg.is_array() && !rg.empty()) gates = "0/" + std::to_string(rg.size());
  return {name_of(pod),
          std::to_string(ready) + "/" + std::to_string(total),
          pod_reason(pod),
          std::to_string(restarts),
          age_of(pod, now),
          str(pod, {"status", "podIP"}, "<none>"),
          str(pod, {"spec", "nodeName"}, "<none>"),
          str(pod, {"status", "nominatedNodeName"}, "<none>"),
          gates};
}

std::vector<json> namespace_cells(const json& o, Clock::time_point now) {
  return {name_of(o), str(o, {"status", "phase"}), age_of(o, now)};
}

std::vector<json> generic_cells(const json& o, Clock::time_point now) {
  return {name_of(o), age_of(o, now)};
}

std::vector<json> configmap_cells(const json& o, Clock::time_point now) {
  size_t n = 0;
  for (const char* f : {"data", "binaryData"}) {
    const json& d = at(o, {f});
    if (d.is_object()) n += d.size();
  }
  return {name_of(o), static_cast<long long>(n), age_of(o, now)};
}

std::vector<json> secret_cells(const json& o, Clock::time_point now) {
  const json& d = at(o, {"data"});
  return {name_of(o), str(o, {"type"}), static_cast<long long>(d.is_object() ? d.size() : 0),
          age_of(o, now)};
}

std::vector<json> serviceaccount_cells(const json& o, Clock::time_point now) {
  const json& s = at(o, {"secrets"});
  return {name_of(o), static_cast<long long>(s.is_array() ? s.size() : 0), age_of(o, now)};
}

std::vector<json> deployment_cells(const json& o, Clock::time_point now) {
  auto [containers, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          std::to_string(num(o, {"status", "readyReplicas"})) + "/" +
              std::to_string(num(o, {"spec", "replicas"})),
          num(o, {"status", "updatedReplicas"}),
          num(o, {"status", "availableReplicas"}),
          age_of(o, now),
          containers,
          images,
          selector_string(at(o, {"spec", "selector", "matchLabels"}))};
}

std::vector<json> replicaset_cells(const json& o, Clock::time_point now) {
  auto [containers, images] = containers_images(at(o, {"spec", "template", "spec"}));
  return {name_of(o),
          num(o, {"spec", "replicas"}),
          num(o, {"status", "replicas"}),
          num(o, {"status", "readyReplicas"}),
          age_of(o, now),
          containers,
          images,
          selector_string(at(o, {"spec", "selector", "matchLabels"}))};
}

std::string service_ports(const json& svc) {
  const json& ports = at(svc, {"spec", "ports"});
  if (!ports.is_array() || ports.empty()) return "<none>";
  std::vector<std::string> parts;
  for (const auto& p : ports) {
    std::string s = std::to_string(num(p, {"port"}));
    if (num(p, {"nodePort"}) > 0) s += ":" + std::to_string(num(p, {"nodePort"}));
    s += "/" + str(p, {"protocol"}, "TCP");
    parts.push_back(s);
  }
  return join(parts);
}

std::vector<json> service_cells(const json& o, Clock::time_point now) {
  std::string type = str(o, {"spec", "type"}, "ClusterIP");
  std::vector<std::string> external;
  const json& ips = at(o, {"spec", "externalIPs"});
  if (ips.is_array()) {
    for (const auto& ip : ips) external.push_back(ip.is_string() ? ip.get<std::string>() : "");
  }
  const json& ingress = at(o, {"status", "loadBalancer", "ingress"});
  if (ingress.is_array()) {
    for (const auto& i : ingress) external.push_back(str(i, {"ip"}, str(i, {"hostname"})));
  }
  std::string ext =
      external.empty() ? (type == "LoadBalancer" ? "<pending>" : "<none>") : join(external);
  if (type == "ExternalName") ext = str(o, {"spec", "externalName"});
  return {name_of(o),       type,           str(o, {"spec", "clusterIP"}, "<none>"),     ext,
          service_ports(o), age_of(o, now), selector_string(at(o, {"spec", "selector"}))};
}

std::vector<json> node_cells(const json& o, Clock::time_point now) {
  std::string status = "Unknown";
  const json& conds = at(o, {"status", "conditions"});
  if (conds.is_array()) {
    for (const auto& c : conds) {
      if (str(c, {"type"}) == "Ready")
        status = str(c, {"status"}) == "True"    ? "Ready"
                 : str(c, {"status"}) == "False" ? "NotReady"
                                                 : "Unknown";
    }
  }
  if (at(o, {"spec", "unschedulable"}) == true) status += ",SchedulingDisabled";
  std::vector<std::string> roles;
  const json& labels = at(o, {"metadata", "labels"});
  if (labels.is_object()) {
    for (auto& [k, v] : labels.items()) {
      const std::string prefix = "node-role.kubernetes.io/";
      if (k.rfind(prefix, 0) == 0 && k.size() > prefix.size())
        roles.push_back(k.substr(prefix.size()));
    }
  }
  std::string internal = "<none>", external = "<none>";
  const json& addrs = at(o, {"status", "addresses"});
  if (addrs.is_array()) {
    for (const auto& a : addrs) {
      if (str(a, {"type"}) == "InternalIP" && internal == "<none>") internal = str(a, {"address"});
      if (str(a, {"type"}) == "ExternalIP" && external == "<none>") external = str(a, {"address"});
    }
  }
  return {name_of(o),
          status,
          roles.empty() ? "<none>" : join(roles),
          age_of(o, now),
          str(o, {"status", "nodeInfo", "kubeletVersion"}),
          internal,
          external,
          str(o, {"status", "nodeInfo", "osImage"}),
          str(o, {"status", "nodeInfo", "kernelVersion"}),
          str(o, {"status", "nodeInfo", "containerRuntimeVersion"})};
}

std::vector<json> event_cells(const json& o, Clock::time_point now) {
  std::string last = str(o, {"lastTimestamp"}, str(o, {"eventTime"}));
  json fake = {{"metadata", {{"creationTimestamp", last}}}};
  json first = {{"metadata", {{"creationTimestamp", str(o, {"firstTimestamp"}, last)}}}};
  std::string object = str(o, {"involvedObject", "kind"});
  for (auto& ch : object) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  object += "/" + str(o, {"involvedObject", "name"});
  std::string source = str(o, {"source", "component"}, str(o, {"reportingComponent"}));
  if (!str(o, {"source", "host"}).empty()) source += ", " + str(o, {"source", "host"});
  return {age_of(fake, now),
          str(o, {"type"}),
          str(o, {"reason"}),
          object,
          str(o, {"involvedObject", "fieldPath"}),
          source,
          str(o, {"message"}),
          age_of(first, now),
          num(o, {"count"}) > 0 ? num(o, {"count"}) : 1,
          name_of(o)};
}

std::vector<json> lease_cells(const json& o, Clock::time_point now) {
  return {name_of(o), str(o, {"spec", "holderIdentity"}, "<none>"), age_of(o, now)};
}

const std::map<std::pair<std::string, std::string>, Printer>& printers() {
  static const std::map<std::pair<std::string, std::string>, Printer> table = {
      {{"", "Pod"},
       {{name_column(),
         text("Ready", "The aggregate readiness state of this pod for accepting traffic."),
         text("Status", "The aggregate status of the containers in this pod."),
         text("Restarts",
              "The number of times the containers in this pod have been restarted and when the "
              "last container in this pod has restarted."),
         age_column(),
         text("IP",
              "IP address allocated to the pod. Routable at least within the cluster. Empty if not "
              "yet allocated.",
              1),
         text("Node", "NodeName is a request to schedule this pod onto a specific node.", 1),
         text("Nominated Node",
              "nominatedNodeName is set when this pod preempts other pods on the node.", 1),
         text("Readiness Gates",
              "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
        pod_cells}},
      {{"", "Namespace"},
       {{name_column(), text("Status", "The status of the namespace"), age_column()},
        namespace_cells}},
      {{"", "ConfigMap"},
       {{name_column(), integer("Data", "Number of entries in the data and binaryData fields."),
         age_column()},
        configmap_cells}},
      {{"", "Secret"},
       {{name_column(), text("Type", "The type of the secret"),
         integer("Data", "The number of entries in the data field."), age_column()},
        secret_cells}},
      {{"", "ServiceAccount"},
       {{name_column(),
         integer("Secrets",
                 "Secrets is a list of the secrets in the same namespace that pods running using "
                 "this ServiceAccount are allowed to use."),
         age_column()},
        serviceaccount_cells}},
      {{"", "Service"},
       {{name_column(), text("Type", "The type of the service"),
         text("Cluster-IP", "The cluster IP of the service"),
         text("External-IP", "The external IPs of the service"),
         text("Port(s)", "The ports of the service"), age_column(),
         text("Selector",
              "Route service traffic to pods with label keys and values matching this selector.",
              1)},
        service_cells}},
      {{"", "Node"},
       {{name_column(), text("Status", "The status of the node"),
         text("Roles", "The roles of the node"), age_column(),
         text("Version", "Kubelet Version reported by the node."),
         text("Internal-IP", "List of internal IPs of the node.", 1),
         text("External-IP", "List of external IPs of the node.", 1),
         text("OS-Image", "OS Image reported by the node from /etc/os-release.", 1),
         text("Kernel-Version", "Kernel Version reported by the node from 'uname -r'.", 1),
         text("Container-Runtime",
              "Container Runtime Version reported by the node through runtime remote API.", 1)},
        node_cells}},
      {{"", "Event"},
       {{text("Last Seen", "Time when last this event was observed."),
         text("Type",
              "Type of this event (Normal, Warning), new types could be added in the future."),
         text("Reason",
              "This should be a short, machine understandable string that gives the reason for the "
              "transition into the object's current status."),
         text("Object", "The object that this event is about."),
         text("Subobject", "The subobject this event is about.", 1),
         text("Source", "The component reporting this event.", 1),
         text("Message", "A human-readable description of the status of this operation."),
         text("First Seen", "The time at which the event was first recorded.", 1),
         integer("Count", "The number of times this event has occurred.", 1),
         {"Name", "string", "name", "Name must be unique within a namespace.", 1}},
        event_cells}},
      {{"apps", "Deployment"},
       {{name_column(), text("Ready", "Number of the pod with ready state"),
         integer("Up-to-date",
                 "Total number of non-terminated pods targeted by this deployment that have the "
                 "desired template spec."),
         integer("Available",
                 "Total number of available pods (ready for at least minReadySeconds) targeted by "
                 "this deployment."),
         age_column(), text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1),
         text("Selector",
              "Label selector for pods. Existing ReplicaSets whose pods are selected by this will "
              "be the ones affected by this deployment.",
              1)},
        deployment_cells}},
      {{"apps", "ReplicaSet"},
       {{name_column(), integer("Desired", "Number of desired pods."),
         integer("Current", "Number of actual pods."), integer("Ready", "Number of pods ready."),
         age_column(), text("Containers", "Names of each container in the template.", 1),
         text("Images", "Images referenced by each container in the template.", 1),
         text("Selector", "Label selector for pods.", 1)},
        replicaset_cells}},
      {{"coordination.k8s.io", "Lease"},
       {{name_column(), text("Holder", "Name of the current holder of the lease."), age_column()},
        lease_cells}},
  };
  return table;
}

}  // namespace

const Printer& printer_for(std::string_view group, std::string_view kind) {
  static const Printer generic{{name_column(), age_column()}, generic_cells};
  auto it = printers().find({std::string(group), std::string(kind)});
  return it == printers().end() ? generic : it->second;
}

}  // namespace k3c::apiserver

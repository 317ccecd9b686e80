// Node object and status building (see node_status.h).
#include "roles/kubelet/node_status.h"

#include <algorithm>
#include <cctype>

#include "api/json_fields.h"
#include "api/quantity.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

// Upstream's nodeStatusMaxImages and MaxNamesPerImageInNodeStatus.
constexpr size_t kMaxImages = 50;
constexpr size_t kMaxNamesPerImage = 5;

std::string binary_quantity(int64_t bytes) {
  return api::Quantity::from_value(std::max<int64_t>(bytes, 0), api::Quantity::Format::kBinarySI)
      .to_string();
}

json resources(const NodeIdentity& id, const MachineInfo& m, int64_t memory, int64_t storage) {
  return {{"cpu", std::to_string(m.cpus)},
          {"ephemeral-storage", binary_quantity(storage)},
          {"hugepages-1Gi", "0"},
          {"hugepages-2Mi", "0"},
          {"memory", binary_quantity(memory)},
          {"pods", std::to_string(id.max_pods)}};
}

json addresses(const NodeIdentity& id, const MachineInfo& m) {
  json out = json::array();
  if (!id.node_ips.empty()) {
    for (const std::string& ip : id.node_ips)
      out.push_back({{"type", "InternalIP"}, {"address", ip}});
  } else {
    out.push_back({{"type", "InternalIP"}, {"address", m.default_ipv4.value_or("127.0.0.1")}});
  }
  out.push_back({{"type", "Hostname"}, {"address", id.name}});
  return out;
}

json images_of(std::vector<runtime::ImageSummary> images) {
  // Largest first, as upstream lists them; the list and each image's names are capped.
  std::stable_sort(images.begin(), images.end(),
                   [](const auto& a, const auto& b) { return a.size > b.size; });
  json out = json::array();
  for (const runtime::ImageSummary& image : images) {
    if (out.size() == kMaxImages) break;
    json names = json::array();
    for (const std::string& name : image.references) {
      if (names.size() == kMaxNamesPerImage) break;
      names.push_back(name);
    }
    if (names.empty()) names.push_back(image.id);
    out.push_back({{"names", names}, {"sizeBytes", image.size}});
  }
  return out;
}

json condition(const char* type, const char* status, const char* reason,
               const std::string& message, const json& previous, const std::string& now) {
  std::string transition = now;
  for (const json& c : api::member(previous, "conditions").is_array()
                           ? api::member(previous, "conditions")
                           : json::array()) {
    if (api::text(c, "type") == type && api::text(c, "status") == status &&
        !api::text(c, "lastTransitionTime").empty()) {
      transition = api::text(c, "lastTransitionTime");
    }
  }
  return {{"type", type},
          {"status", status},
          {"lastHeartbeatTime", now},
          {"lastTransitionTime", transition},
          {"reason", reason},
          {"message", message}};
}

json conditions(const json& previous, const std::string& now, NodePressure pressure) {
  // As upstream's setters (pkg/kubelet/nodestatus); Ready comes last, as upstream keeps it
  // for old readers.
  auto memory = pressure.memory
                    ? condition("MemoryPressure", "True", "KubeletHasInsufficientMemory",
                                "kubelet has insufficient memory available", previous, now)
                    : condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                                "kubelet has sufficient memory available", previous, now);
  auto disk = pressure.disk ? condition("DiskPressure", "True", "KubeletHasDiskPressure",
                                        "kubelet has disk pressure", previous, now)
                            : condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                                        "kubelet has no disk pressure", previous, now);
  auto pid = pressure.pid ? condition("PIDPressure", "True", "KubeletHasInsufficientPID",
                                      "kubelet has insufficient PID available", previous, now)
                          : condition("PIDPressure", "False", "KubeletHasSufficientPID",
                                      "kubelet has sufficient PID available", previous, now);
  auto ready =
      pressure.not_ready.empty()
          ? condition("Ready", "True", "KubeletReady", "kubelet is posting ready status", previous,
                      now)
          : condition("Ready", "False", "KubeletNotReady", pressure.not_ready, previous, now);
  return json::array({memory, disk, pid, ready});
}

json without_heartbeats(json status) {
  if (status.is_object()) {
    if (auto c = status.find("conditions"); c != status.end() && c->is_array()) {
      for (json& condition : *c) {
        if (condition.is_object()) condition.erase("lastHeartbeatTime");
      }
    }
  }
  return status;
}

}  // namespace

std::string node_name_for(const std::string& configured, const std::string& hostname) {
  std::string name = configured.empty() ? hostname : configured;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

json node_labels(const NodeIdentity& id, const MachineInfo& m) {
  json labels = {{"kubernetes.io/hostname", id.name},
                 {"kubernetes.io/os", "linux"},
                 {"kubernetes.io/arch", m.architecture},
                 {"beta.kubernetes.io/os", "linux"},
                 {"beta.kubernetes.io/arch", m.architecture}};
  if (id.control_plane) {
    labels["node-role.kubernetes.io/control-plane"] = "true";
    labels["node-role.kubernetes.io/master"] = "true";
  }
  for (const auto& [key, value] : id.labels) labels[key] = value;
  return labels;
}

json registration_node(const NodeIdentity& id, const MachineInfo& m,
                       const std::vector<runtime::ImageSummary>& images, const std::string& now) {
  json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", id.name},
        {"labels", node_labels(id, m)},
        // Volumes are attached by the controller manager, not the kubelet.
        {"annotations", {{"volumes.kubernetes.io/controller-managed-attach-detach", "true"}}}}},
      {"spec", json::object()},
      {"status", node_status(id, m, images, json::object(), now)}};
  if (!id.taints.empty()) {
    json taints = json::array();
    for (const Taint& t : id.taints) {
      json taint = {{"key", t.key}, {"effect", t.effect}};
      if (!t.value.empty()) taint["value"] = t.value;
      taints.push_back(std::move(taint));
    }
    node["spec"]["taints"] = std::move(taints);
  }
  return node;
}

std::optional<json> label_patch(const json& node, const json& wanted_labels) {
  const json& have = api::member(api::member(node, "metadata"), "labels");
  json changes = json::object();
  for (const auto& [key, value] : wanted_labels.items()) {
    const json& current = api::member(have, key.c_str());
    if (current != value) changes[key] = value;
  }
  if (changes.empty()) return std::nullopt;
  return json{{"metadata", {{"labels", std::move(changes)}}}};
}

json node_status(const NodeIdentity& id, const MachineInfo& m,
                 const std::vector<runtime::ImageSummary>& images, const json& previous,
                 const std::string& now, NodePressure pressure) {
  // The hard eviction thresholds come off the capacity; kube-reserved and system-reserved
  // are empty by default.
  auto reserve = [](const std::optional<ThresholdValue>& threshold, int64_t capacity) {
    return threshold ? threshold_quantity(*threshold, capacity).value() : 0;
  };
  const int64_t memory_reserve = reserve(id.eviction_memory, m.memory_bytes);
  const int64_t storage_reserve = reserve(id.eviction_nodefs, m.ephemeral_storage_bytes);
  json status = {{"capacity", resources(id, m, m.memory_bytes, m.ephemeral_storage_bytes)},
                 {"allocatable", resources(id, m, m.memory_bytes - memory_reserve,
                                           m.ephemeral_storage_bytes - storage_reserve)},
                 {"conditions", conditions(previous, now, pressure)},
                 {"addresses", addresses(id, m)},
                 {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", id.port}}}}},
                 {"nodeInfo",
                  {{"machineID", m.machine_id},
                   {"systemUUID", m.system_uuid},
                   {"bootID", m.boot_id},
                   {"kernelVersion", m.kernel_version},
                   {"osImage", m.os_image},
                   {"containerRuntimeVersion", id.runtime_version},
                   {"kubeletVersion", id.kubelet_version},
                   {"kubeProxyVersion", id.kubelet_version},
                   {"operatingSystem", "linux"},
                   {"architecture", m.architecture}}}};
  if (!images.empty()) status["images"] = images_of(images);
  return status;
}

bool status_changed(const json& previous, const json& next) {
  return without_heartbeats(previous) != without_heartbeats(next);
}

bool status_write_due(const json& previous, const json& next,
                      std::optional<Clock::TimePoint> last_report, Clock::TimePoint now,
                      std::chrono::milliseconds report_frequency) {
  if (!last_report) return true;
  if (status_changed(previous, next)) return true;
  return now - *last_report >= report_frequency;
}

json node_lease(const std::string& node, const std::string& node_uid, int duration_seconds,
                const std::string& renew_time) {
  json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", node}, {"namespace", "kube-node-lease"}}},
                {"spec",
                 {{"holderIdentity", node},
                  {"leaseDurationSeconds", duration_seconds},
                  {"renewTime", renew_time}}}};
  if (!node_uid.empty()) {
    lease["metadata"]["ownerReferences"] =
        json::array({{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}, {"uid", node_uid}}});
  }
  return lease;
}

}  // namespace k3c::kubelet

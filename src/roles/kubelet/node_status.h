// The Node object the kubelet registers and the status it reports, as pure functions of the
// kubelet's config (NodeIdentity), a probe of the machine (MachineInfo) and the images
// present; plus the decisions of when to write. No I/O here: node_registration.h does the
// API calls, machine_probe.h reads the machine.
//
// Shapes and wording follow upstream's kubelet (pkg/kubelet/nodestatus): labels it owns,
// capacity and allocatable (minus the hard eviction thresholds), conditions with
// their reasons and messages, Ready last.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "roles/kubelet/eviction/eviction_thresholds.h"
#include "roles/kubelet/machine_probe.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

// The pressure conditions the eviction manager sees (eviction/eviction_manager.h), and the
// kubelet's own health: a non-empty `not_ready` (the pod manager's health_problem()) makes
// Ready False with reason KubeletNotReady and that message, as upstream's runtime and PLEG
// checks do.
struct NodePressure {
  bool memory = false;
  bool disk = false;
  bool pid = false;
  std::string not_ready;
  bool operator==(const NodePressure&) const = default;
};

// What the kubelet's config says about its node.
struct NodeIdentity {
  std::string name;
  std::vector<std::string> node_ips;                        // --node-ip, at most one per family
  std::vector<std::pair<std::string, std::string>> labels;  // --node-label
  std::vector<Taint> taints;                                // --node-taint
  bool control_plane = false;                               // a server: role labels
  uint16_t port = 10250;
  std::string kubelet_version;  // the apiserver's gitVersion ("v1.32.0+k3c1")
  std::string runtime_version;  // "k3c://v0.1.0"
  int max_pods = 110;
  // The hard eviction thresholds of memory.available and nodefs.available come off the
  // allocatable memory and ephemeral-storage (upstream's defaults; nullopt: none set).
  std::optional<ThresholdValue> eviction_memory =
      default_hard_thresholds()[Signal::kMemoryAvailable];
  std::optional<ThresholdValue> eviction_nodefs =
      default_hard_thresholds()[Signal::kNodeFsAvailable];
};

// The node name: --node-name if given, else the host name in lower case (as upstream's
// kubelet and k3s).
std::string node_name_for(const std::string& configured, const std::string& hostname);

// The labels the kubelet sets: kubernetes.io/hostname, kubernetes.io/os and /arch and their
// beta.kubernetes.io twins, the control-plane and master role labels on servers (as k3s),
// then the --node-label ones (which win on a clash).
nlohmann::json node_labels(const NodeIdentity& id, const MachineInfo& m);

// The Node to create when none exists: labels, taints, the attach/detach annotation and the
// first status (nodes take their status on create). spec.podCIDR is node IPAM's.
nlohmann::json registration_node(const NodeIdentity& id, const MachineInfo& m,
                                 const std::vector<runtime::ImageSummary>& images,
                                 const std::string& now);

// For a node that exists: a JSON merge patch setting the labels of node_labels() that differ,
// or nullopt when all are in place. Other labels are left alone; taints are not touched
// (--node-taint applies at registration only, as upstream).
std::optional<nlohmann::json> label_patch(const nlohmann::json& node,
                                          const nlohmann::json& wanted_labels);

// The node's status now. `previous` is the status the API holds (lastTransitionTime of an
// unchanged condition is kept from it). `now`: RFC 3339. The pressure conditions are True
// with upstream's reasons and messages as `pressure` says.
nlohmann::json node_status(const NodeIdentity& id, const MachineInfo& m,
                           const std::vector<runtime::ImageSummary>& images,
                           const nlohmann::json& previous, const std::string& now,
                           NodePressure pressure = {});

// Whether `next` differs from `previous` in anything but the conditions' heartbeat times.
bool status_changed(const nlohmann::json& previous, const nlohmann::json& next);

// Upstream's rule: write when the status changed, or when `report_frequency` has passed since
// the last write (`last_report`; nullopt when this kubelet has not written yet).
bool status_write_due(const nlohmann::json& previous, const nlohmann::json& next,
                      std::optional<Clock::TimePoint> last_report, Clock::TimePoint now,
                      std::chrono::milliseconds report_frequency);

// The node's Lease (kube-node-lease/<node>): held by the node, owned by its Node (so it goes
// with it). `node_uid` "" leaves the owner out. `renew_time`: RFC 3339 with microseconds.
nlohmann::json node_lease(const std::string& node, const std::string& node_uid,
                          int duration_seconds, const std::string& renew_time);

}  // namespace k3c::kubelet

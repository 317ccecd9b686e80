// The scheduler's typed view of Nodes and Pods: parsed once from their JSON (parse_node.cpp,
// parse_pod.cpp) into compact, immutable structs that the plugins read without touching JSON.
// Objects are shared (std::shared_ptr<const ...>) between the cache, snapshots and NodeInfo
// copies made during preemption; nothing here changes after parsing.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/selector.h"
#include "core/status.h"
#include "roles/scheduler/resources.h"

namespace k3c::scheduler {

enum class TaintEffect : uint8_t { kNone, kNoSchedule, kPreferNoSchedule, kNoExecute };

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNone;
};

struct Toleration {
  std::string key;      // empty with Exists: tolerates every taint
  bool exists = false;  // operator Exists; otherwise Equal
  std::string value;
  TaintEffect effect = TaintEffect::kNone;  // kNone: every effect
  // For NoExecute: how long a bound pod stays once the taint appears (none: forever).
  std::optional<int64_t> toleration_seconds;

  bool tolerates(const Taint& taint) const;
};
bool tolerates_all(const std::vector<Toleration>& tolerations, const Taint& taint);

// A NodeSelectorRequirement: on labels (matchExpressions) or on fields (matchFields, where
// only metadata.name exists).
struct NodeSelectorRequirement {
  enum class Op : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };
  std::string key;
  Op op = Op::kIn;
  std::vector<std::string> values;
};
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};
// Terms are ORed; an empty list matches nothing (upstream: a present but empty
// requiredDuringScheduling.nodeSelectorTerms matches no node).
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;
};
struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm term;
};

// A PodAffinityTerm with its namespaces resolved as far as the pod alone allows.
struct PodAffinityTerm {
  std::optional<LabelSelector> selector;            // nullopt: a null selector, matches nothing
  std::vector<std::string> namespaces;              // with the pod's own when both are empty
  std::optional<LabelSelector> namespace_selector;  // {} matches every namespace
  std::string topology_key;
};
struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
};

struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool do_not_schedule = true;            // whenUnsatisfiable DoNotSchedule; false: ScheduleAnyway
  std::optional<LabelSelector> selector;  // with matchLabelKeys merged in
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy (default Honor)
  bool honor_node_taints = false;   // nodeTaintsPolicy (default Ignore)
};

struct HostPort {
  std::string ip;  // "0.0.0.0" when unset
  std::string protocol;
  int32_t port = 0;
  bool conflicts_with(const HostPort& other) const;
};

struct ContainerImage {
  std::string name;  // normalized: ":latest" added when no tag or digest is given
};

struct PodInfo {
  std::string namespace_;
  std::string name;
  std::string uid;
  Labels labels;
  int32_t priority = 0;
  bool preempt_never = false;  // preemptionPolicy Never
  std::string scheduler_name;
  std::string node_name;
  std::string nominated_node_name;
  bool terminating = false;  // metadata.deletionTimestamp set
  std::string start_time;    // status.startTime (RFC 3339, compares as text)

  Labels node_selector;
  std::optional<NodeSelector> required_node_affinity;
  std::vector<PreferredSchedulingTerm> preferred_node_affinity;
  std::vector<PodAffinityTerm> required_affinity;
  std::vector<PodAffinityTerm> required_anti_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_anti_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> spread_constraints;
  std::vector<HostPort> host_ports;
  std::vector<std::string> images;  // normalized, of init and app containers
  size_t container_count = 0;       // init + app containers (ImageLocality's threshold)
  std::vector<std::string> pvc_names;

  // The effective request (upstream's rule, see parse_pod.cpp) and the same with the
  // defaults for a container that requests no cpu (100m) or memory (200Mi), which scoring uses
  // so that many request-less pods do not all land on one node.
  Resources request;
  Resources non_zero_request;

  std::string key() const { return namespace_ + "/" + name; }
  bool has_affinity() const {
    return !required_affinity.empty() || !required_anti_affinity.empty() ||
           !preferred_affinity.empty() || !preferred_anti_affinity.empty();
  }
};
using PodPtr = std::shared_ptr<const PodInfo>;

struct NodeImage {
  std::string name;
  int64_t size_bytes = 0;
};

struct NodeModel {
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  bool ready = false;  // the Ready condition; scheduling reads the not-ready taints instead
  Resources allocatable;
  std::vector<NodeImage> images;  // sorted by name, one entry per name
  // The most volumes of attachable kinds this node takes (CSINode allocatable count), when
  // known; NodeVolumeLimits checks it.
  std::optional<int32_t> max_volumes;
};
using NodePtr = std::shared_ptr<const NodeModel>;

// From a v1.Node / v1.Pod object. Errors (kInvalid) only for JSON that is not an object of
// that shape at all; unknown or malformed optional parts are skipped as the apiserver would
// have rejected them.
Result<NodePtr> node_from_json(const nlohmann::json& node);
Result<PodPtr> pod_from_json(const nlohmann::json& pod);
// node.spec.taints and pod.spec.tolerations (tolerant: a malformed field reads as empty).
std::vector<Taint> taints_from_json(const nlohmann::json& list);
std::vector<Toleration> tolerations_from_json(const nlohmann::json& list);
// A metav1.LabelSelector; nullopt for null/absent (matches nothing where that matters).
std::optional<LabelSelector> label_selector_from_json(const nlohmann::json& selector);
Labels labels_from_json(const nlohmann::json& labels);
std::string normalized_image_name(const std::string& image);

}  // namespace k3c::scheduler

// The eviction manager's pure decisions (see eviction_decision.h).
#include "roles/kubelet/eviction/eviction_decision.h"

#include <algorithm>
#include <functional>

#include "api/json_fields.h"
#include "api/pod_qos.h"

namespace k3c::kubelet {
namespace {

using api::Quantity;
using nlohmann::json;

constexpr int64_t kSystemCriticalPriority = 2'000'000'000;

Quantity bytes_quantity(int64_t bytes) {
  return Quantity::from_value(bytes, Quantity::Format::kBinarySI);
}

std::optional<Quantity> quantity_of(const json& value) {
  if (value.is_string()) return Quantity::parse(value.get<std::string>());
  if (value.is_number()) return Quantity::parse(value.dump());
  return std::nullopt;
}

// The container's resources.<kind>.<resource>, if set.
std::optional<Quantity> container_amount(const json& container, const char* kind,
                                         std::string_view resource) {
  const json& amounts = api::member(api::member(container, "resources"), kind);
  if (!amounts.is_object()) return std::nullopt;
  auto it = amounts.find(std::string(resource));
  if (it == amounts.end()) return std::nullopt;
  return quantity_of(*it);
}

const json& containers_of(const json& pod) {
  static const json none = json::array();
  const json& c = api::member(api::member(pod, "spec"), "containers");
  return c.is_array() ? c : none;
}

// The pod's request of a resource: its containers' summed (0 when none asks).
int64_t pod_request(const json& pod, std::string_view resource) {
  int64_t sum = 0;
  for (const json& c : containers_of(pod))
    if (auto q = container_amount(c, "requests", resource)) sum += q->value();
  return sum;
}

int64_t priority_of(const json& pod) {
  const json& p = api::member(api::member(pod, "spec"), "priority");
  return p.is_number_integer() ? p.get<int64_t>() : 0;
}

std::string uid_of(const json& pod) { return api::text(api::member(pod, "metadata"), "uid"); }

const PodUsage* usage_of(const json& pod, const NodeStats& stats) {
  auto it = stats.pods.find(uid_of(pod));
  return it == stats.pods.end() ? nullptr : &it->second;
}

uint64_t memory_usage(const PodUsage& usage) {
  uint64_t sum = 0;
  for (const ContainerUsage& c : usage.containers) sum += c.memory_working_set_bytes;
  return sum;
}

uint64_t volumes_usage(const PodUsage& usage) {
  uint64_t sum = 0;
  for (const auto& [name, bytes] : usage.volume_bytes) sum += bytes;
  return sum;
}

// What a disk signal measures of a pod (upstream's fsStatsToMeasure).
uint64_t disk_usage(const PodUsage& usage, Signal signal, bool dedicated_imagefs) {
  const bool imagefs = signal == Signal::kImageFsAvailable || signal == Signal::kImageFsInodesFree;
  const bool rootfs = !dedicated_imagefs || imagefs;
  const bool local = !dedicated_imagefs || !imagefs;
  uint64_t sum = local ? volumes_usage(usage) : 0;
  for (const ContainerUsage& c : usage.containers)
    sum += (rootfs ? c.rootfs_bytes : 0) + (local ? c.logs_bytes : 0);
  return sum;
}

// -1, 0, 1 as a is to come before, tie, after b.
using Compare = std::function<int(const json& a, const json& b)>;

template <typename T>
int order(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Pods without stats first, then `measure` (larger first when `larger_first`).
Compare by_usage(const NodeStats& stats,
                 std::function<int64_t(const json&, const PodUsage&)> measure, bool larger_first) {
  return [&stats, measure, larger_first](const json& a, const json& b) {
    const PodUsage* ua = usage_of(a, stats);
    const PodUsage* ub = usage_of(b, stats);
    if (!ua || !ub) return order(ua != nullptr, ub != nullptr);
    const int c = order(measure(a, *ua), measure(b, *ub));
    return larger_first ? -c : c;
  };
}

Compare by_priority() {
  return [](const json& a, const json& b) { return order(priority_of(a), priority_of(b)); };
}

// A pod's usage of the signal's resource, and its request of it.
std::pair<int64_t, int64_t> usage_and_request(const json& pod, const PodUsage& usage, Signal signal,
                                              bool dedicated_imagefs) {
  if (signal == Signal::kMemoryAvailable)
    return {static_cast<int64_t>(memory_usage(usage)), pod_request(pod, "memory")};
  return {static_cast<int64_t>(disk_usage(usage, signal, dedicated_imagefs)),
          pod_request(pod, "ephemeral-storage")};
}

std::vector<Compare> rank_keys(const NodeStats& stats, Signal signal) {
  const bool dedicated = stats.dedicated_imagefs;
  if (signal == Signal::kPidAvailable) {
    return {
        by_priority(),
        by_usage(
            stats, [](const json&, const PodUsage& u) { return static_cast<int64_t>(u.processes); },
            true)};
  }
  auto exceeds = [signal, dedicated](const json& pod, const PodUsage& u) -> int64_t {
    auto [used, request] = usage_and_request(pod, u, signal, dedicated);
    return used > request ? 1 : 0;
  };
  auto above = [signal, dedicated](const json& pod, const PodUsage& u) -> int64_t {
    auto [used, request] = usage_and_request(pod, u, signal, dedicated);
    return used - request;
  };
  return {by_usage(stats, exceeds, true), by_priority(), by_usage(stats, above, true)};
}

// Whether the pod's tolerations tolerate node.kubernetes.io/memory-pressure:NoSchedule.
bool tolerates_memory_pressure(const json& pod) {
  const json& tolerations = api::member(api::member(pod, "spec"), "tolerations");
  for (const json& t : tolerations.is_array() ? tolerations : json::array()) {
    const std::string effect = api::text(t, "effect");
    if (!effect.empty() && effect != "NoSchedule") continue;
    const std::string key = api::text(t, "key");
    if (api::text(t, "operator") == "Exists") {
      if (key.empty() || key == "node.kubernetes.io/memory-pressure") return true;
    } else if (key == "node.kubernetes.io/memory-pressure" && api::text(t, "value").empty()) {
      return true;
    }
  }
  return false;
}

}  // namespace

Observations observe(const NodeStats& stats) {
  Observations out;
  auto i64 = [](uint64_t v) { return static_cast<int64_t>(v); };
  if (stats.memory_capacity_bytes && stats.memory_available_bytes) {
    out[Signal::kMemoryAvailable] = {i64(*stats.memory_available_bytes),
                                     i64(*stats.memory_capacity_bytes), false};
  }
  auto fs = [&](const std::optional<FsStats>& f, Signal bytes, Signal inodes) {
    if (!f) return;
    out[bytes] = {i64(f->available_bytes), i64(f->capacity_bytes), false};
    if (f->inodes > 0) out[inodes] = {i64(f->inodes_free), i64(f->inodes), true};
  };
  fs(stats.nodefs, Signal::kNodeFsAvailable, Signal::kNodeFsInodesFree);
  fs(stats.imagefs, Signal::kImageFsAvailable, Signal::kImageFsInodesFree);
  if (stats.max_pids && stats.processes) {
    out[Signal::kPidAvailable] = {i64(*stats.max_pids) - i64(*stats.processes),
                                  i64(*stats.max_pids), true};
  }
  return out;
}

std::vector<Threshold> thresholds_met(const std::vector<Threshold>& thresholds,
                                      const Observations& observed, bool enforce_min_reclaim) {
  std::vector<Threshold> met;
  for (const Threshold& t : thresholds) {
    auto o = observed.find(t.signal);
    if (o == observed.end()) continue;
    Quantity quantity = threshold_quantity(t.value, o->second.capacity);
    if (enforce_min_reclaim && t.min_reclaim)
      quantity += threshold_quantity(*t.min_reclaim, o->second.capacity);
    if (quantity > Quantity::from_value(o->second.available)) met.push_back(t);
  }
  return met;
}

PressureStep evaluate_pressure(const std::vector<Threshold>& thresholds,
                               const PressureState& previous, const Observations& observed,
                               Clock::TimePoint now, std::chrono::milliseconds transition_period) {
  std::vector<Threshold> met = thresholds_met(thresholds, observed, false);
  // A threshold acted on stays met until its minimum reclaim is free too.
  for (const Threshold& t : thresholds_met(previous.met, observed, true))
    if (std::find(met.begin(), met.end(), t) == met.end()) met.push_back(t);
  PressureStep step;
  for (const Threshold& t : met) {
    const auto key = std::make_pair(t.signal, t.hard());
    auto seen = previous.first_observed.find(key);
    step.state.first_observed[key] = seen != previous.first_observed.end() ? seen->second : now;
  }
  step.state.condition_last_observed = previous.condition_last_observed;
  for (const Threshold& t : met)
    step.state.condition_last_observed[std::string(signal_condition(t.signal))] = now;
  std::erase_if(step.state.condition_last_observed,
                [&](const auto& kv) { return now - kv.second >= transition_period; });
  for (const auto& [condition, at] : step.state.condition_last_observed)
    step.conditions.insert(condition);
  for (const Threshold& t : met) {
    if (now - step.state.first_observed[{t.signal, t.hard()}] >= t.grace_period)
      step.act_on.push_back(t);
  }
  step.state.met = step.act_on;
  return step;
}

std::optional<Threshold> threshold_to_reclaim(const std::vector<Threshold>& act_on) {
  if (act_on.empty()) return std::nullopt;
  for (const Threshold& t : act_on)
    if (t.signal == Signal::kMemoryAvailable) return t;
  return act_on.front();
}

bool is_critical_pod(const json& pod) {
  const json& annotations = api::member(api::member(pod, "metadata"), "annotations");
  if (!api::text(annotations, "kubernetes.io/config.mirror").empty()) return true;
  const std::string source = api::text(annotations, "kubernetes.io/config.source");
  if (!source.empty() && source != "api") return true;
  return priority_of(pod) >= kSystemCriticalPriority;
}

std::vector<size_t> rank_for_eviction(const std::vector<json>& pods, const NodeStats& stats,
                                      Signal signal) {
  std::vector<size_t> ranked(pods.size());
  for (size_t i = 0; i < pods.size(); ++i) ranked[i] = i;
  const std::vector<Compare> keys = rank_keys(stats, signal);
  std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
    for (const Compare& key : keys) {
      if (int c = key(pods[a], pods[b]); c != 0) return c < 0;
    }
    return false;
  });
  return ranked;
}

std::string eviction_message(const json& pod, const PodUsage* usage, std::string_view resource,
                             const std::vector<Threshold>& act_on, const Observations& observed) {
  std::string message = "The node was low on resource: " + std::string(resource) + ". ";
  for (const Threshold& t : act_on) {
    if (signal_resource(t.signal) != resource) continue;
    auto o = observed.find(t.signal);
    if (o == observed.end()) continue;
    const Quantity available = o->second.count ? Quantity::from_value(o->second.available)
                                               : bytes_quantity(o->second.available);
    message +=
        "Threshold quantity: " + threshold_quantity(t.value, o->second.capacity).to_string() +
        ", available: " + available.to_string() + ". ";
    break;
  }
  if (!usage || (resource != "memory" && resource != "ephemeral-storage")) return message;
  for (const ContainerUsage& c : usage->containers) {
    for (const json& container : containers_of(pod)) {
      if (api::text(container, "name") != c.name) continue;
      const Quantity request =
          container_amount(container, "requests", resource).value_or(Quantity());
      const Quantity used = bytes_quantity(static_cast<int64_t>(
          resource == "memory" ? c.memory_working_set_bytes : c.rootfs_bytes + c.logs_bytes));
      if (used > request) {
        message += "Container " + c.name + " was using " + used.to_string() + ", request is " +
                   request.to_string() + ", has larger consumption of " + std::string(resource) +
                   ". ";
      }
    }
  }
  return message;
}

std::optional<std::string> local_storage_violation(const json& pod, const PodUsage& usage,
                                                   bool dedicated_imagefs) {
  const json& volumes = api::member(api::member(pod, "spec"), "volumes");
  for (const json& volume : volumes.is_array() ? volumes : json::array()) {
    const json& empty_dir = api::member(volume, "emptyDir");
    if (!empty_dir.is_object()) continue;
    auto limit = quantity_of(api::member(empty_dir, "sizeLimit"));
    auto used = usage.volume_bytes.find(api::text(volume, "name"));
    if (!limit || limit->negative() || limit->is_zero() || used == usage.volume_bytes.end())
      continue;
    if (bytes_quantity(static_cast<int64_t>(used->second)) > *limit)
      return "Usage of EmptyDir volume \"" + api::text(volume, "name") + "\" exceeds the limit \"" +
             limit->to_string() + "\". ";
  }
  // The summed limits of the containers that set one, against the pod's whole usage.
  std::optional<Quantity> pod_limit;
  for (const json& c : containers_of(pod)) {
    if (auto q = container_amount(c, "limits", "ephemeral-storage"))
      pod_limit = pod_limit ? *pod_limit + *q : *q;
  }
  if (pod_limit) {
    uint64_t total = volumes_usage(usage);
    for (const ContainerUsage& c : usage.containers) total += c.rootfs_bytes + c.logs_bytes;
    if (bytes_quantity(static_cast<int64_t>(total)) > *pod_limit)
      return "Pod ephemeral local storage usage exceeds the total limit of containers " +
             pod_limit->to_string() + ". ";
  }
  for (const ContainerUsage& c : usage.containers) {
    for (const json& container : containers_of(pod)) {
      if (api::text(container, "name") != c.name) continue;
      auto limit = container_amount(container, "limits", "ephemeral-storage");
      if (!limit || limit->is_zero()) continue;
      const uint64_t used = c.logs_bytes + (dedicated_imagefs ? 0 : c.rootfs_bytes);
      if (bytes_quantity(static_cast<int64_t>(used)) > *limit)
        return "Container " + c.name + " exceeded its local ephemeral storage limit \"" +
               limit->to_string() + "\". ";
    }
  }
  return std::nullopt;
}

std::optional<std::string> admission_rejection(const json& pod,
                                               const std::set<std::string>& conditions) {
  if (conditions.empty() || is_critical_pod(pod)) return std::nullopt;
  if (conditions == std::set<std::string>{"MemoryPressure"} &&
      (api::qos_class(pod) != api::QosClass::kBestEffort || tolerates_memory_pressure(pod)))
    return std::nullopt;
  // Go's %v of the condition list, in the order the signals come.
  std::string list;
  for (const char* type : {"MemoryPressure", "DiskPressure", "PIDPressure"})
    if (conditions.count(type)) list += (list.empty() ? "" : " ") + std::string(type);
  return "The node had condition: [" + list + "]. ";
}

std::vector<Eviction> local_storage_evictions(const std::vector<json>& pods,
                                              const NodeStats& stats) {
  std::vector<Eviction> out;
  for (const json& pod : pods) {
    const PodUsage* usage = usage_of(pod, stats);
    if (!usage || is_critical_pod(pod)) continue;
    if (auto message = local_storage_violation(pod, *usage, stats.dedicated_imagefs))
      out.push_back({pod, *message, false, 0});
  }
  return out;
}

std::optional<Eviction> choose_pod_to_evict(const std::vector<json>& pods, const NodeStats& stats,
                                            const Threshold& threshold,
                                            const std::vector<Threshold>& act_on,
                                            const Observations& observed,
                                            int max_pod_grace_period_seconds) {
  const std::string_view resource = signal_resource(threshold.signal);
  for (size_t i : rank_for_eviction(pods, stats, threshold.signal)) {
    const json& pod = pods[i];
    if (is_critical_pod(pod)) continue;
    int64_t grace = 0;
    if (!threshold.hard()) {
      const json& own = api::member(api::member(pod, "spec"), "terminationGracePeriodSeconds");
      const int64_t pods_own = own.is_number_integer() ? own.get<int64_t>() : 30;
      grace = max_pod_grace_period_seconds < 0
                  ? pods_own
                  : std::min<int64_t>(max_pod_grace_period_seconds, pods_own);
    }
    return Eviction{pod, eviction_message(pod, usage_of(pod, stats), resource, act_on, observed),
                    true, grace};
  }
  return std::nullopt;
}

}  // namespace k3c::kubelet

// The eviction manager (see eviction_manager.h).
#include "roles/kubelet/eviction/eviction_manager.h"

#include "api/json_fields.h"
#include "core/log.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

std::string pod_uid(const json& pod) { return api::text(api::member(pod, "metadata"), "uid"); }

bool is_disk_signal(Signal signal) { return signal_condition(signal) == "DiskPressure"; }

}  // namespace

EvictionManager::EvictionManager(EvictionManagerConfig config, EvictionStatsSource& stats,
                                 EvictionHooks hooks, const Clock& clock)
    : config_(std::move(config)), stats_(stats), hooks_(std::move(hooks)), clock_(clock) {}

NodePressure EvictionManager::pressure() const {
  std::lock_guard lock(mu_);
  return pressure_;
}

std::optional<std::string> EvictionManager::admit(const json& pod) const {
  std::lock_guard lock(mu_);
  return admission_rejection(pod, conditions_);
}

std::vector<json> EvictionManager::active_pods() {
  std::vector<json> active;
  std::set<std::string> present;
  for (json& pod : hooks_.pods ? hooks_.pods() : std::vector<json>()) {
    const std::string uid = pod_uid(pod);
    const std::string phase = api::text(api::member(pod, "status"), "phase");
    if (phase == "Succeeded" || phase == "Failed") continue;
    present.insert(uid);
    if (!evicted_.count(uid)) active.push_back(std::move(pod));
  }
  std::erase_if(evicted_, [&](const std::string& uid) { return !present.count(uid); });
  return active;
}

void EvictionManager::evict(const Eviction& eviction, std::vector<std::string>& evicted) {
  const std::string uid = pod_uid(eviction.pod);
  if (hooks_.evict) hooks_.evict(eviction);
  evicted_.insert(uid);
  evicted.push_back(uid);
}

std::vector<std::string> EvictionManager::synchronize() {
  auto logger = log::for_role("kubelet");
  std::vector<std::string> evicted;
  auto stats = stats_.collect();
  if (!stats.is_ok()) {
    logger->warn("eviction manager: reading the node's usage: {}", stats.status().message());
    return evicted;
  }
  const Observations observed = observe(*stats);
  PressureStep step = evaluate_pressure(config_.thresholds, state_, observed, clock_.now(),
                                        config_.pressure_transition_period);
  state_ = std::move(step.state);
  const NodePressure pressure{step.conditions.count("MemoryPressure") > 0,
                              step.conditions.count("DiskPressure") > 0,
                              step.conditions.count("PIDPressure") > 0};
  {
    std::lock_guard lock(mu_);
    if (!(pressure == pressure_)) {
      logger->info("eviction manager: pressure now memory={} disk={} pid={}", pressure.memory,
                   pressure.disk, pressure.pid);
    }
    pressure_ = pressure;
    conditions_ = step.conditions;
  }
  std::vector<json> pods = active_pods();
  // Pods over their own limits go first, whatever the node's pressure (upstream's
  // localStorageEviction).
  std::vector<Eviction> over_limits = local_storage_evictions(pods, *stats);
  for (const Eviction& e : over_limits) evict(e, evicted);
  if (!over_limits.empty()) return evicted;

  auto threshold = threshold_to_reclaim(step.act_on);
  if (!threshold) return evicted;
  const std::string resource(signal_resource(threshold->signal));
  if (hooks_.warn) hooks_.warn("EvictionThresholdMet", "Attempting to reclaim " + resource);
  if (is_disk_signal(threshold->signal) && hooks_.reclaim_disk) {
    hooks_.reclaim_disk();
    auto again = stats_.collect();
    if (again.is_ok() && thresholds_met(config_.thresholds, observe(*again), false).empty()) {
      logger->info("eviction manager: able to reduce {} pressure without evicting pods", resource);
      return evicted;
    }
  }
  auto victim = choose_pod_to_evict(pods, *stats, *threshold, step.act_on, observed,
                                    config_.max_pod_grace_period_seconds);
  if (!victim) {
    logger->warn("eviction manager: no pod to evict for {}", signal_name(threshold->signal));
    return evicted;
  }
  evict(*victim, evicted);
  return evicted;
}

}  // namespace k3c::kubelet

// The arithmetic of the horizontal pod autoscaler (upstream's podautoscaler controller,
// without its I/O): the replica count a metric asks for (within the tolerance nothing
// changes), the stabilization windows over past recommendations, and the scaling rules
// that limit how fast replicas may rise or fall (behavior: policies, selectPolicy). Pure
// functions, unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::controllers {

using HpaClock = std::chrono::system_clock;

// --horizontal-pod-autoscaler-tolerance: ratios within 10% of 1 change nothing.
inline constexpr double kHpaTolerance = 0.1;

// What a utilization-style metric asks for: `ready_pods` scaled by usage/target, rounded up;
// `current_replicas` while the ratio is within the tolerance.
int32_t replicas_for_ratio(int32_t current_replicas, int32_t ready_pods, double usage_ratio,
                           double tolerance = kHpaTolerance);

struct ScalingPolicy {
  bool percent = false;  // Percent, else Pods
  int32_t value = 0;
  int32_t period_seconds = 0;
};
struct ScalingRules {
  int32_t stabilization_window_seconds = 0;
  std::string select_policy = "Max";  // Max, Min, Disabled
  std::vector<ScalingPolicy> policies;
};
// spec.behavior.scaleUp / scaleDown with upstream's defaults for what is missing: up: no
// window, the larger of 4 pods or 100% per 15 s; down: a 300 s window, 100% per 15 s.
ScalingRules scale_up_rules(const nlohmann::json& behavior);
ScalingRules scale_down_rules(const nlohmann::json& behavior);

// A past change of the target's replicas, made by this autoscaler.
struct ScaleEvent {
  HpaClock::time_point at;
  int32_t change = 0;  // always positive: replicas added (up) or removed (down)
};
// A past recommendation (before stabilization and limits).
struct Recommendation {
  HpaClock::time_point at;
  int32_t replicas = 0;
};

// The recommendation within the windows: no higher than the lowest of the scale-up window,
// no lower than the highest of the scale-down window (the current count in between).
int32_t stabilized(int32_t current, int32_t desired, const std::vector<Recommendation>& history,
                   const ScalingRules& up, const ScalingRules& down, HpaClock::time_point now);

// The most replicas the scale-up rules allow now, and the fewest the scale-down rules allow.
int32_t scale_up_limit(int32_t current, const std::vector<ScaleEvent>& ups,
                       const ScalingRules& rules, HpaClock::time_point now);
int32_t scale_down_limit(int32_t current, const std::vector<ScaleEvent>& downs,
                         const ScalingRules& rules, HpaClock::time_point now);

// The desired count brought within [min, max] and the rate limits, with the ScalingLimited
// condition's reason and message as upstream words them.
struct Limited {
  int32_t replicas = 0;
  std::string reason;  // DesiredWithinRange, ScaleUpLimit, TooManyReplicas, ...
  std::string message;
};
Limited within_limits(int32_t current, int32_t desired, int32_t min_replicas, int32_t max_replicas,
                      const std::vector<ScaleEvent>& ups, const std::vector<ScaleEvent>& downs,
                      const ScalingRules& up, const ScalingRules& down, HpaClock::time_point now);

}  // namespace k3c::controllers

#include "roles/controllers/podautoscaler/scaling_math.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "api/json_fields.h"

namespace k3c::controllers {

using nlohmann::json;

int32_t replicas_for_ratio(int32_t current_replicas, int32_t ready_pods, double usage_ratio,
                           double tolerance) {
  if (std::fabs(1.0 - usage_ratio) <= tolerance) return current_replicas;
  return static_cast<int32_t>(std::ceil(usage_ratio * static_cast<double>(ready_pods)));
}

namespace {

ScalingRules rules_from(const json& given, ScalingRules rules) {
  if (!given.is_object()) return rules;
  const json& window = api::member(given, "stabilizationWindowSeconds");
  if (window.is_number_integer()) rules.stabilization_window_seconds = window.get<int32_t>();
  if (!api::text(given, "selectPolicy").empty())
    rules.select_policy = api::text(given, "selectPolicy");
  const json& policies = api::member(given, "policies");
  if (policies.is_array() && !policies.empty()) {
    rules.policies.clear();
    for (const json& p : policies) {
      const json& value = api::member(p, "value");
      const json& period = api::member(p, "periodSeconds");
      rules.policies.push_back({api::text(p, "type") == "Percent",
                                value.is_number_integer() ? value.get<int32_t>() : 0,
                                period.is_number_integer() ? period.get<int32_t>() : 0});
    }
  }
  return rules;
}

// Replicas changed within the last `period_seconds`.
int32_t changed_within(const std::vector<ScaleEvent>& events, int32_t period_seconds,
                       HpaClock::time_point now) {
  const auto cutoff = now - std::chrono::seconds(period_seconds);
  int32_t total = 0;
  for (const auto& e : events) {
    if (e.at > cutoff) total += e.change;
  }
  return total;
}

}  // namespace

ScalingRules scale_up_rules(const json& behavior) {
  return rules_from(api::member(behavior, "scaleUp"),
                    {0, "Max", {{false, 4, 15}, {true, 100, 15}}});
}

ScalingRules scale_down_rules(const json& behavior) {
  return rules_from(api::member(behavior, "scaleDown"), {300, "Max", {{true, 100, 15}}});
}

int32_t stabilized(int32_t current, int32_t desired, const std::vector<Recommendation>& history,
                   const ScalingRules& up, const ScalingRules& down, HpaClock::time_point now) {
  int32_t up_recommendation = desired;
  int32_t down_recommendation = desired;
  const auto up_cutoff = now - std::chrono::seconds(up.stabilization_window_seconds);
  const auto down_cutoff = now - std::chrono::seconds(down.stabilization_window_seconds);
  for (const auto& r : history) {
    if (r.at > up_cutoff) up_recommendation = std::min(up_recommendation, r.replicas);
    if (r.at > down_cutoff) down_recommendation = std::max(down_recommendation, r.replicas);
  }
  int32_t recommendation = current;
  if (recommendation < up_recommendation) recommendation = up_recommendation;
  if (recommendation > down_recommendation) recommendation = down_recommendation;
  return recommendation;
}

namespace {

// The bound the rules put on a change away from `current`, `direction` +1 (up) or -1
// (down). Policies propose a count from where their period started (replicas changed
// within it undone); Max picks the biggest change, Min the smallest.
int32_t rate_limit(int32_t current, const std::vector<ScaleEvent>& events,
                   const ScalingRules& rules, HpaClock::time_point now, int direction) {
  if (rules.select_policy == "Disabled") return current;
  const bool highest = (rules.select_policy == "Min") == (direction < 0);
  int64_t result = highest ? INT32_MIN : INT32_MAX;
  for (const auto& p : rules.policies) {
    const int64_t start = current - direction * changed_within(events, p.period_seconds, now);
    const double factor = 1.0 + direction * static_cast<double>(p.value) / 100.0;
    // Up, a percentage rounds up (else a small target could never grow); down, it truncates.
    const double scaled = static_cast<double>(start) * factor;
    const int64_t proposed = !p.percent
                                 ? start + direction * p.value
                                 : static_cast<int64_t>(direction > 0 ? std::ceil(scaled) : scaled);
    result = highest ? std::max(result, proposed) : std::min(result, proposed);
  }
  return static_cast<int32_t>(std::clamp<int64_t>(result, INT32_MIN, INT32_MAX));
}

}  // namespace

int32_t scale_up_limit(int32_t current, const std::vector<ScaleEvent>& ups,
                       const ScalingRules& rules, HpaClock::time_point now) {
  return rate_limit(current, ups, rules, now, +1);
}

int32_t scale_down_limit(int32_t current, const std::vector<ScaleEvent>& downs,
                         const ScalingRules& rules, HpaClock::time_point now) {
  return rate_limit(current, downs, rules, now, -1);
}

Limited within_limits(int32_t current, int32_t desired, int32_t min_replicas, int32_t max_replicas,
                      const std::vector<ScaleEvent>& ups, const std::vector<ScaleEvent>& downs,
                      const ScalingRules& up, const ScalingRules& down, HpaClock::time_point now) {
  if (desired > current) {
    const int32_t limit = std::max(scale_up_limit(current, ups, up, now), current);
    if (max_replicas > limit) {
      if (desired > limit) {
        return {limit, "ScaleUpLimit",
                "the desired replica count is increasing faster than the maximum scale rate"};
      }
    } else if (desired > max_replicas) {
      return {max_replicas, "TooManyReplicas",
              "the desired replica count is more than the maximum replica count"};
    }
  } else if (desired < current) {
    const int32_t limit = std::min(scale_down_limit(current, downs, down, now), current);
    if (min_replicas < limit) {
      if (desired < limit) {
        return {limit, "ScaleDownLimit",
                "the desired replica count is decreasing faster than the maximum scale rate"};
      }
    } else if (desired < min_replicas) {
      return {min_replicas, "TooFewReplicas",
              "the desired replica count is less than the minimum replica count"};
    }
  }
  return {desired, "DesiredWithinRange", "the desired count is within the acceptable range"};
}

}  // namespace k3c::controllers

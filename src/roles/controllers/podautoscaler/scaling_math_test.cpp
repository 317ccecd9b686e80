#include "roles/controllers/podautoscaler/scaling_math.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const HpaClock::time_point kNow = HpaClock::time_point(1'000'000s);

TEST_CASE("HPA: a ratio within the tolerance changes nothing, beyond it scales the ready pods") {
  CHECK(replicas_for_ratio(4, 4, 1.05) == 4);
  CHECK(replicas_for_ratio(4, 4, 0.91) == 4);
  CHECK(replicas_for_ratio(4, 4, 1.5) == 6);
  CHECK(replicas_for_ratio(4, 4, 1.2) == 5);  // 4.8 rounds up
  CHECK(replicas_for_ratio(4, 4, 0.5) == 2);
  CHECK(replicas_for_ratio(5, 3, 2.0) == 6);  // from the ready pods
}

TEST_CASE("HPA: behavior defaults and overrides") {
  ScalingRules up = scale_up_rules(json());
  CHECK(up.stabilization_window_seconds == 0);
  CHECK(up.select_policy == "Max");
  REQUIRE(up.policies.size() == 2);
  CHECK_FALSE(up.policies[0].percent);
  CHECK(up.policies[0].value == 4);
  CHECK(up.policies[1].percent);
  ScalingRules down = scale_down_rules(json());
  CHECK(down.stabilization_window_seconds == 300);
  REQUIRE(down.policies.size() == 1);

  json behavior = {{"scaleDown",
                    {{"stabilizationWindowSeconds", 60},
                     {"selectPolicy", "Min"},
                     {"policies", {{{"type", "Pods"}, {"value", 1}, {"periodSeconds", 30}}}}}}};
  down = scale_down_rules(behavior);
  CHECK(down.stabilization_window_seconds == 60);
  CHECK(down.select_policy == "Min");
  REQUIRE(down.policies.size() == 1);
  CHECK(down.policies[0].value == 1);
  CHECK(down.policies[0].period_seconds == 30);
  CHECK(scale_up_rules(behavior).policies.size() == 2);  // scaleUp still defaulted
}

TEST_CASE("HPA: the stabilization windows hold the recommendation") {
  ScalingRules up = scale_up_rules(json());      // no window
  ScalingRules down = scale_down_rules(json());  // 300 s
  std::vector<Recommendation> history = {{kNow - 400s, 10}, {kNow - 200s, 8}, {kNow - 60s, 6}};
  // Scaling down: the highest recommendation within 5 minutes wins (8; 10 is too old).
  CHECK(stabilized(9, 3, history, up, down, kNow) == 8);
  // Scaling up is immediate without a scale-up window.
  CHECK(stabilized(5, 12, history, up, down, kNow) == 12);
  // With a scale-up window the lowest recent recommendation caps it.
  up.stabilization_window_seconds = 120;
  CHECK(stabilized(5, 12, history, up, down, kNow) == 6);
}

TEST_CASE("HPA: scaling rules limit the rate") {
  ScalingRules up = scale_up_rules(json());
  // Max of +4 pods and +100% per 15 s.
  CHECK(scale_up_limit(2, {}, up, kNow) == 6);  // +4 pods beats +100%
  CHECK(scale_up_limit(10, {}, up, kNow) == 20);
  // Replicas added in the period count against it (the period started at 7).
  CHECK(scale_up_limit(10, {{kNow - 5s, 3}}, up, kNow) == 14);
  CHECK(scale_up_limit(10, {{kNow - 30s, 3}}, up, kNow) == 20);  // outside the period
  up.select_policy = "Min";
  CHECK(scale_up_limit(10, {}, up, kNow) == 14);
  up.select_policy = "Disabled";
  CHECK(scale_up_limit(10, {}, up, kNow) == 10);

  ScalingRules down = scale_down_rules(json());  // 100% per 15 s
  CHECK(scale_down_limit(10, {}, down, kNow) == 0);
  down.policies = {{true, 50, 60}, {false, 2, 60}};
  CHECK(scale_down_limit(10, {}, down, kNow) == 5);  // Max: the larger change
  down.select_policy = "Min";
  CHECK(scale_down_limit(10, {}, down, kNow) == 8);                // Min: the smaller change
  CHECK(scale_down_limit(8, {{kNow - 10s, 2}}, down, kNow) == 8);  // from 10, 2 already gone
}

TEST_CASE("HPA: the desired count within min, max and the rates, with upstream's reasons") {
  ScalingRules up = scale_up_rules(json()), down = scale_down_rules(json());
  Limited l = within_limits(3, 5, 1, 10, {}, {}, up, down, kNow);
  CHECK(l.replicas == 5);
  CHECK(l.reason == "DesiredWithinRange");
  l = within_limits(3, 50, 1, 10, {}, {}, up, down, kNow);
  CHECK(l.replicas == 7);  // +4 pods or +100%: 7, below max 10
  CHECK(l.reason == "ScaleUpLimit");
  CHECK(l.message == "the desired replica count is increasing faster than the maximum scale rate");
  l = within_limits(8, 50, 1, 10, {}, {}, up, down, kNow);
  CHECK(l.replicas == 10);
  CHECK(l.reason == "TooManyReplicas");
  l = within_limits(5, 0, 2, 10, {}, {}, up, down, kNow);
  CHECK(l.replicas == 2);
  CHECK(l.reason == "TooFewReplicas");
  down.policies = {{false, 1, 60}};
  l = within_limits(5, 2, 1, 10, {}, {}, up, down, kNow);
  CHECK(l.replicas == 4);
  CHECK(l.reason == "ScaleDownLimit");
}

}  // namespace
}  // namespace k3c::controllers

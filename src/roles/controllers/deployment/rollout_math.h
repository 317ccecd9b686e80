// The arithmetic of a Deployment rollout, as upstream's deployment utilities: surge and
// unavailability bounds from intOrString values, the pod-template hash, revisions.
// Pure functions, unit-tested.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace k3c::controllers {

// An intOrString ("25%" or 1) against a total: percentages round up for surge and down for
// unavailability, as upstream.
int64_t scaled_value(const nlohmann::json& value, int64_t total, bool round_up);

struct RolloutBounds {
  int64_t max_surge = 0;
  int64_t max_unavailable = 0;
};
// From spec.strategy.rollingUpdate (defaults 25%/25%); both zero becomes unavailable 1.
RolloutBounds rollout_bounds(const nlohmann::json& deployment);

// The pod-template-hash label value: name_hash() of the template (and the collision count).
std::string pod_template_hash(const nlohmann::json& pod_template, int64_t collision_count);

// The template without the pod-template-hash label (and without a null creationTimestamp),
// for "is this the same template".
nlohmann::json template_without_hash(nlohmann::json pod_template);

// deployment.kubernetes.io/revision of an object (0 when absent or malformed).
int64_t revision_of(const nlohmann::json& object);

}  // namespace k3c::controllers

// Structural schemas of custom resources (a CRD version's openAPIV3Schema), applied to
// objects as upstream's apiextensions-apiserver does on every write: unknown fields are
// pruned (and reported, for fieldValidation=Strict), `default`s filled in, then the object is
// validated with upstream's wording ("spec.replicas in body must be of type integer: ...").
//
// The schema is used as the JSON document the CRD carries; nothing is compiled. Supported:
// type, properties, required, enum, minimum/maximum (exclusive too), minLength/maxLength,
// pattern, minItems/maxItems, items, additionalProperties, nullable, format date-time/int32,
// x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource. Pure functions, callable from any thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roles/apiserver/api_errors.h"

namespace k3c::apiserver::crd {

// Removes every field of `object` (a whole custom resource) that the schema does not
// describe; apiVersion, kind and metadata at the root are always kept. Returns the paths of
// the removed fields ("spec.foo", "spec.items[0].bar") in document order.
std::vector<std::string> prune(nlohmann::json& object, const nlohmann::json& schema);

// Sets the schema's `default` of every absent property, at every level present.
void apply_defaults(nlohmann::json& object, const nlohmann::json& schema);

// Validates a whole custom resource (the root's apiVersion, kind and metadata excepted).
std::vector<StatusCause> validate(const nlohmann::json& object, const nlohmann::json& schema);

}  // namespace k3c::apiserver::crd

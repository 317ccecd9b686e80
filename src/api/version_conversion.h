// Conversion between the versions of a kind that differ in shape. The API server stores such
// a kind in one version (its storage version) and converts at its edges: what a client sends
// in another version is converted before it is stored, what is stored is converted to the
// version the client asked for. Today: HorizontalPodAutoscaler, stored as autoscaling/v2 and
// served as autoscaling/v1 too, with upstream's rules (v1 has only a CPU utilization target;
// everything else of v2 rides in the autoscaling.alpha.kubernetes.io/* annotations); Event,
// stored as core v1 and served as events.k8s.io/v1 too (the same fields, renamed).
//
// The rules look at the object's own apiVersion, so an object stored in another version (by
// an older k3c) converts as well.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::api {

// The apiVersion objects of group/kind are stored in when their versions differ in shape;
// "" when every version shares one shape (the object is stored as written).
std::string_view storage_version(std::string_view group, std::string_view kind);

// Converts `object` (any version of a converted kind) to `api_version` in place. Nothing to
// do when it already is, or when the kind has no conversion. kInvalid when an annotation
// that carries v2 fields through v1 is not what it should be.
Status convert_to_version(nlohmann::json& object, std::string_view api_version);

// Whether serialized `object` may need converting to `api_version`: false when it starts with
// that apiVersion (nlohmann writes keys in order, so apiVersion comes first), which spares
// the parse of objects already in the asked version.
bool may_need_conversion(std::string_view object, std::string_view api_version);
// How many leading bytes of an object may_need_conversion reads for `api_version` (what a
// caller holding the object packed needs to unpack).
size_t conversion_check_length(std::string_view api_version);

// The annotations autoscaling/v1 carries v2's fields in (upstream's names).
inline constexpr const char* kHpaMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kHpaCurrentMetricsAnnotation =
    "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kHpaConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr const char* kHpaBehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";

}  // namespace k3c::api

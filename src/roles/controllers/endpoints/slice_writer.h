// Writing a set of EndpointSlices to match the desired contents, shared by the endpointslice
// controller (slices of a Service's pods) and the mirroring controller (slices of a
// selector-less Service's own Endpoints). Existing slices are matched to the desired
// contents in name order: changed ones updated, missing ones created (generateName
// <service>-), surplus ones deleted; expectations keep a lagging cache from creating twice.
#pragma once

#include <string>
#include <vector>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/common/expectations.h"
#include "roles/controllers/endpoints/endpoint_math.h"

namespace k3c::controllers {

inline constexpr const char* kServiceNameLabel = "kubernetes.io/service-name";
inline constexpr const char* kManagedByLabel = "endpointslice.kubernetes.io/managed-by";

// Whose slices these are: the service they serve, the labels they carry (managed-by and
// service-name included) and the controller reference they are created with.
struct SliceSet {
  std::string ns;
  std::string service;
  json labels;
  json owner_ref;
};

// "<ns>/<service>" for a slice managed by `managed_by`, "" for any other.
std::string slice_service_key(const json& slice, const char* managed_by);

// The slices informer's handlers for a controller keyed by service: a slice it manages wakes
// its service's key, and its creations and deletions are counted in `expectations`.
client::EventHandler slice_handler(Controller& controller, Expectations& expectations,
                                   const char* managed_by);

// Makes `existing` (the set's slices, any order) hold `desired` (empty: they all go; a
// placeholder is one empty content). `key` names the set in `expectations`.
Status write_slices(ControllerContext& ctx, Expectations& expectations, const std::string& key,
                    const SliceSet& set, const std::vector<SliceContent>& desired,
                    std::vector<json> existing);

}  // namespace k3c::controllers

// Transforms informers apply to objects before caching them (upstream's SetTransform): an
// informer's cache holds every object of its resource as a parsed tree, about seven times the
// object's JSON, so what none of the cache's readers use is dropped when the object is filed.
//
// A trimmed object must never be written back whole (PUT): what was dropped would be lost or
// refused. The roles whose informers trim (controllers, scheduler) change metadata through
// merge patches with a resourceVersion precondition instead (controllers/common/objects.h,
// patch_metadata), and pods' status only through patches.
//
// Pure functions, any thread.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace k3c::client {

struct CacheTransform {
  // Names the trimming: informers share a parsed tree (shared_objects.h) only when their
  // transforms have the same name. Empty: no transform.
  std::string name;
  std::function<void(nlohmann::json&)> apply;
};

// For the pods of the control plane's informers (controllers, scheduler; not the kubelet's):
// drops the service account token volume the ServiceAccount admission plugin adds
// (`kube-api-access-*`, projected; about a fifth of a pod's tree) with its volumeMounts, and the
// containers' runtime ids (`containerID`, `imageID`) from the container statuses. No
// controller or scheduler plugin reads them: the scheduler reads claim volumes only, the
// StatefulSet controller its claims' volumes, the Job and ReplicaSet controllers a
// container status's name, state, exit code and restart count.
CacheTransform control_plane_pods();

}  // namespace k3c::client

// Transforms informers apply to objects before caching them (upstream's SetTransform): an
// informer's cache holds every object of its resource as a parsed tree, about seven times the
// object's JSON, so what none of the cache's readers use is dropped when the object is filed.
//
// A trimmed object must never be written back whole (PUT): what was dropped would be lost or
// refused. The roles whose informers trim (controllers, scheduler) change metadata through
// merge patches with a resourceVersion precondition instead (controllers/common/metadata_writes.h,
// patch_metadata), and pods' status only through patches.
//
// Pure functions, any thread.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace k3c::client {

struct CacheTransform {
  // Names the trimming: informers share a trimmed tree (shared_objects.h) only when their
  // transforms have the same name. Empty: no transform.
  std::string name;
  // Trims the object; false when it left it whole. A whole object is filed as an untrimmed
  // informer files it (and a trimming informer takes such a tree too: it holds more, not less).
  std::function<bool(nlohmann::json&)> apply;
  // Cache each object as a compact document (core/compact_json.h, about a sixth of a tree)
  // rather than a tree: reads of the cache get trees made from it (informer.h).
  bool compact = false;
  // A compact informer keeps the trees of its last events alive this long, so that the other
  // informers handling the same events, and the next update of the object, take them rather
  // than parse or make them again.
  size_t recent_trees = 256;
};

// For the pods of the control plane's informers (controllers, scheduler; not the kubelet's):
// drops the service account token volume the ServiceAccount admission plugin adds
// (`kube-api-access-*`, projected; about a fifth of a pod's tree) with its volumeMounts, and the
// containers' runtime ids (`containerID`, `imageID`) from the container statuses; and
// defaults the API server fills in: the pod's dnsPolicy, enableServiceLinks, serviceAccount (the
// deprecated alias), terminationGracePeriodSeconds and an empty securityContext, each
// container's imagePullPolicy and terminationMessagePath/Policy, and the conditions' null
// lastProbeTime. No controller or scheduler plugin reads them: the scheduler reads claim
// volumes only, the StatefulSet controller its claims' volumes, the Job and ReplicaSet
// controllers a container status's name, state, exit code and restart count, and conditions
// are read by type, status, reason, message and lastTransitionTime.
// Pods bound to `whole_on_node` (the server's own node, whose kubelet caches its pods whole)
// are left whole, so that one tree serves the kubelet and the control plane; "" trims all.
// The pods are cached as compact documents: with thousands of pods they are most of the
// control plane's memory.
CacheTransform control_plane_pods(std::string whole_on_node = "");

// Objects kept whole, as compact documents: the control plane's nodes and leases (one each
// per node; a node is ~12 kB as a tree, 2-3 kB as a document). Their readers take one at a
// time (get) or make trees of a list only when they act on every node. They change about once
// per node every 10 s, so few recent trees are kept (a parse missed costs little).
CacheTransform compact_objects();

}  // namespace k3c::client

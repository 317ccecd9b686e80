// The identity of a StatefulSet's pods, as upstream: pod <set>-<ordinal> with hostname
// <set>-<ordinal> and subdomain spec.serviceName, labels statefulset.kubernetes.io/pod-name,
// apps.kubernetes.io/pod-index and controller-revision-hash (the revision's name), and per
// volumeClaimTemplate a PVC <template>-<set>-<ordinal> mounted as the template's volume. The
// PVCs' ownerReferences follow persistentVolumeClaimRetentionPolicy: the set owns them when
// whenDeleted is Delete, a pod scaled away owns its claims when whenScaled is Delete.
// Pure functions over JSON, unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

inline constexpr const char* kPodNameLabel = "statefulset.kubernetes.io/pod-name";
inline constexpr const char* kPodIndexLabel = "apps.kubernetes.io/pod-index";
inline constexpr const char* kRevisionLabel = "controller-revision-hash";

struct ParentAndOrdinal {
  std::string parent;  // "" when the name has no ordinal
  int64_t ordinal = -1;
};
// "<parent>-<ordinal>" split at the last dash; ordinal -1 unless it is a non-negative
// 32-bit decimal.
ParentAndOrdinal parse_pod_name(std::string_view pod_name);

struct OrdinalRange {
  int64_t start = 0;  // spec.ordinals.start
  int64_t replicas = 0;
  bool contains(int64_t ordinal) const { return ordinal >= start && ordinal < start + replicas; }
};
OrdinalRange ordinal_range(const json& set);

// Named after the set, with a valid ordinal (upstream's isMemberOf).
bool is_member(const json& set, const json& pod);
std::string pod_name(const json& set, int64_t ordinal);
std::string claim_name(const json& set, const json& claim_template, int64_t ordinal);

// The pod of `ordinal` as `set` (at some revision) describes it, labelled with `revision`.
json new_stateful_pod(const json& set, int64_t ordinal, const std::string& revision);
// The PVCs of the pod at `ordinal`: the templates, renamed, with the selector's labels.
std::vector<json> claims_for(const json& set, int64_t ordinal);

// The pod's name and labels match its identity in the set.
bool identity_matches(const json& set, const json& pod);
// The pod's labels made to match (what an update writes).
json with_identity(const json& set, const json& pod);
// Every claim template is mounted from the pod's own claim.
bool storage_matches(const json& set, const json& pod);

// The PVC's ownerReferences as the retention policy wants them for `pod` (the set's and
// the pod's references replaced; others kept). `pod` may be one not yet created (no uid):
// then only the set's reference is decided.
json claim_owner_refs(const json& set, const json& pod, const json& claim);

bool is_created(const json& pod);  // the API has it (it always sets a phase)
bool running_and_ready(const json& pod);
bool is_healthy(const json& pod);  // running, ready and not being deleted

}  // namespace k3c::controllers

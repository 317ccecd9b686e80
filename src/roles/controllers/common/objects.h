// Small readers and makers of object metadata the controllers share: names, uids,
// ownerReferences, conditions, deletion marks. Tolerant of malformed objects (a missing or
// mistyped field reads as empty), since informer caches hold whatever the API stored.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::controllers {

using nlohmann::json;

const std::string& meta_str(const json& object, const char* field);
inline const std::string& name_of(const json& o) { return meta_str(o, "name"); }
inline const std::string& namespace_of(const json& o) { return meta_str(o, "namespace"); }
inline const std::string& uid_of(const json& o) { return meta_str(o, "uid"); }
// metadata.resourceVersion read as the store revision it is (k3c's revisions are numbers that
// grow with every write), so that an in-process controller can tell an older cached copy from
// its own later write; 0 when missing or not a number.
uint64_t resource_version_number(const json& object);
bool being_deleted(const json& object);
bool has_finalizer(const json& object, std::string_view finalizer);

// The object's ownerReferences (an empty array when there are none).
const json& owner_refs(const json& object);
// The ownerReference with controller=true, or nullptr.
const json* controller_ref(const json& object);
// An ownerReference's uid ("" when missing).
const std::string& ref_uid(const json& ref);
// uids of every owner, for "dependents of" indexes.
std::vector<std::string> owner_uids(const json& object);
// The reference a controller puts on what it creates: controller and blockOwnerDeletion true.
json controller_ref_to(const json& owner, const std::string& api_version, const std::string& kind);

// The status of condition `type` in status.conditions ("" when absent).
std::string condition_status(const json& object, std::string_view type);
// Sets condition `type` in `status` (an object with "conditions"), keeping
// lastTransitionTime when the status does not change. Returns true when anything changed.
bool set_condition(json& status, const std::string& type, const std::string& value,
                   const std::string& reason, const std::string& message, const std::string& now,
                   bool with_update_time = false);

// A pod that counts as running or about to run (not Succeeded/Failed, not being deleted).
bool pod_active(const json& pod);
// status.phase ("" when unset).
std::string pod_phase(const json& pod);
bool pod_ready(const json& pod);
// When the pod's Ready condition last turned True ("" when it is not ready).
std::string ready_since(const json& pod);
// Ready for at least `min_ready_seconds` at `now` (upstream's IsPodAvailable).
bool pod_available(const json& pod, int64_t min_ready_seconds,
                   std::chrono::system_clock::time_point now);

// A pod made from a workload's pod template: the template's labels, annotations, finalizers
// and spec, in the owner's namespace, with a controller reference to the owner. The caller
// names it (generateName or name).
json pod_from_template(const json& pod_template, const json& owner, const std::string& api_version,
                       const std::string& kind);

}  // namespace k3c::controllers

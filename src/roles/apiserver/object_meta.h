// The metadata rules the API server applies to every object on create and update, as
// upstream's BeforeCreate/BeforeUpdate and the built-in strategies do: names and
// generateName, namespace checks, uid and creationTimestamp, generation bumped on spec
// changes only, status owned by the status subresource, immutable metadata kept.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "api/registry.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/request_info.h"

namespace k3c::apiserver {

// Checks apiVersion/kind against the resource (filling them in when absent). With `scheme`,
// the built-in kinds (those upstream's decoder knows), a body of another built-in kind
// than a built-in resource's is refused as upstream's decoder refuses it: it decodes as its
// own type, which does not convert (`Service in version "v1" cannot be handled as a Pod:
// converting (v1.Service) to (core.Pod): unknown conversion`).
std::optional<ApiError> check_type(nlohmann::json& object, const api::Resource& resource,
                                   const api::ResourceRegistry* scheme = nullptr);

// Prepares a new object: on success `object` is ready to store (no resourceVersion).
std::optional<ApiError> prepare_create(nlohmann::json& object, const api::Resource& resource,
                                       const RequestInfo& info,
                                       std::chrono::system_clock::time_point now);

// What an update makes of a metadata.uid that is not the stored object's. A PUT's body uid is
// a precondition: 409 in the storage layer's words. A patch (any type, apply too) has no
// precondition upstream, so the patched uid is a change of an immutable field: 422.
enum class NewUid { kPrecondition, kImmutable };

// Prepares an update of `old` to `object` through the main resource (subresource "") or the
// status subresource. Returns the object to store.
ApiResult<nlohmann::json> prepare_update(nlohmann::json object, const nlohmann::json& old,
                                         const api::Resource& resource, const RequestInfo& info,
                                         NewUid new_uid);

// `o` without metadata.resourceVersion: stored objects carry theirs, and comparisons and
// updates must not see it.
nlohmann::json without_resource_version(nlohmann::json o);

// Validates labels, annotations, name and the finalizers list; causes as upstream words them.
std::vector<StatusCause> validate_metadata(const nlohmann::json& object,
                                           const api::Resource& resource);

// Whether objects of the resource carry metadata.generation (workloads, custom resources...).
bool tracks_generation(const api::Resource& resource);

}  // namespace k3c::apiserver

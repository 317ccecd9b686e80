// The REST verbs on stored resources: get, list and watch from the watch cache; create,
// update, patch and delete through the store with optimistic concurrency. Each returns the
// complete HTTP response, errors in upstream's Status shape.
//
// Thread-safety: every method from any thread (the HTTP worker pool); the class holds no
// mutable state of its own.
#pragma once

#include <chrono>
#include <memory>

#include "api/registry.h"
#include "api/schema.h"
#include "core/clock.h"
#include "http/http.h"
#include "roles/apiserver/admission.h"
#include "roles/apiserver/admission_plugins.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/request_info.h"
#include "roles/apiserver/strategies.h"
#include "roles/apiserver/watch_cache.h"
#include "store/store.h"

namespace k3c::apiserver {

struct CustomResource;

// The namespaces the server creates at start; NamespaceLifecycle never lets them be deleted.
inline constexpr const char* kBuiltinNamespaces[] = {"default", "kube-system", "kube-public",
                                                     "kube-node-lease"};

// One API call, as the handlers see it.
struct Call {
  const RequestInfo& info;
  const api::Resource& resource;
  const http::Request& request;
  // Set when the resource is a custom resource (a CRD version); lives as long as the call.
  const CustomResource* custom = nullptr;
};

// The keys, label selector and field selector a list, watch or deletecollection addresses
// (selectors parsed, fields checked against the kind's selectable fields).
ApiResult<Filter> filter_for(const Call& call);

class Rest {
 public:
  // `schemas` and `registry` decode protobuf request bodies (content.h, BodyCodecs).
  Rest(store::Store& store, WatchCache& cache, Strategies& strategies, const Clock& clock,
       std::shared_ptr<const api::SchemaSet> schemas,
       std::shared_ptr<const api::ResourceRegistry> registry)
      : store_(store),
        cache_(cache),
        strategies_(strategies),
        clock_(clock),
        schemas_(std::move(schemas)),
        registry_(std::move(registry)),
        admission_(store, cache, *registry_) {}

  http::Response get(const Call& call);
  // get() when the cache already holds what the call may read (never waits): for the
  // server's network threads. nullopt otherwise.
  std::optional<http::Response> get_if_ready(const Call& call);
  http::Response list(const Call& call);
  http::Response watch(const Call& call);
  http::Response create(const Call& call);
  http::Response update(const Call& call);
  http::Response patch(const Call& call);
  http::Response remove(const Call& call);
  http::Response remove_collection(const Call& call);
  // GET, PUT and PATCH of a custom resource's scale subresource (rest_custom.cpp).
  http::Response custom_scale(const Call& call);

  // A snapshot as the call's answer: a <Kind>List (items in the call's version) or a Table
  // (also for objects made at the call, such as componentstatuses).
  http::Response list_answer(const Call& call, OutputFormat format, const Filter& filter,
                             const ListSnapshot& snapshot);

  // Creates an object if it does not exist (bootstrap: default namespaces, services).
  Status ensure(const api::Resource& resource, const std::string& ns, nlohmann::json object);

 private:
  // Reads the current object for a write; nullopt-like error when absent.
  struct Current {
    nlohmann::json object;
    int64_t revision;
  };
  std::variant<Current, http::Response> read_current(const Call& call);
  // The list a LIST call reads, by its continue token, resourceVersion and
  // resourceVersionMatch (upstream's semantics: Exact and paged lists with a version from the
  // store's history, the rest from the cache).
  ApiResult<ListSnapshot> list_snapshot(const Call& call, const Filter& filter, int64_t limit);
  // Stores an update of `current` (read at `revision`); the update that removes the last
  // finalizer of an object marked for deletion deletes it instead.
  http::Response write_updated(const Call& call, nlohmann::json updated,
                               const nlohmann::json& current, int64_t revision, int status);
  http::Response finish_delete(const Call& call, const Current& current);
  // Stores a new object; `applied`: it comes from server-side apply with its managedFields.
  http::Response create_object(const Call& call, nlohmann::json object, bool applied,
                               const std::vector<std::string>& warnings = {});
  // PATCH with application/apply-patch+yaml (rest_apply.cpp).
  http::Response apply(const Call& call);
  // A merge patch of a built-in kind's status that carries only the status and metadata
  // preconditions (a kubelet's or a controller's status write), written by editing the
  // cached text (rest_status_patch.cpp): only status and metadata.managedFields are parsed
  // and written again, the rest (spec, most of metadata) is copied. The answer the parsed
  // object would give; nullopt when the patch or the object is not one it handles, or the
  // object changed meanwhile: the caller patches the parsed object.
  std::optional<http::Response> patch_status_text(const Call& call, const nlohmann::json& patch,
                                                  FieldValidation mode);
  // The rules of custom resources and CRDs on create and update (rest_custom.cpp): schema
  // pruning, defaults and validation; CRD defaults and validation. `old` is null on create.
  std::optional<ApiError> admit_custom(const Call& call, nlohmann::json& object,
                                       const nlohmann::json* old);

  BodyCodecs codecs() const { return {*schemas_, *registry_}; }

  // Kinds whose versions differ in shape are stored in one version (api/version_conversion.h)
  // and converted at the edges (rest_versions.cpp): a stored object into the call's version,
  // an object of the call's version into the bytes to store, cached bytes into the answer.
  static bool converts(const Call& call);        // the call's kind has a storage version
  static bool stored_as_sent(const Call& call);  // stored in the version the call sends
  Result<nlohmann::json> in_call_version(const Call& call, nlohmann::json stored) const;
  Result<std::string> stored_bytes(const Call& call, const nlohmann::json& object) const;
  std::string answer_bytes(const Call& call, const PackedText& cached) const;
  // The answer to a write of `object`, stored as `stored` at `revision`: the stored bytes with
  // the resourceVersion put in by a scan when they are the object's own serialization (no
  // second dump), else the object serialized with it.
  std::string written_answer(const Call& call, const std::string& key, nlohmann::json object,
                             std::string_view stored, int64_t revision) const;
  // Defaults, mutating admission and validation of a written object, in upstream's order
  // (`old`: the stored object on update, null on create).
  // What the kinds' own rules (strategies.h) need to know of the call.
  WriteContext write_context(const Call& call) const;
  std::optional<ApiError> admit(const Call& call, nlohmann::json& object,
                                const nlohmann::json* old);
  // The writer's entry of metadata.managedFields (field_ownership.h), recorded where upstream
  // records it. A built-in kind's at kDecoded: from the object as decoded and defaulted, before
  // mutating admission and the kind's own preparation, so that what a plugin or the server
  // sets (a pod's service account token volume and tolerations, a Service's cluster IP)
  // belongs to no manager. A custom resource's (or CRD's) at kAdmitted: once admit_custom has
  // pruned and defaulted it, which its decoding does upstream. Nothing at the other phase.
  enum class RecordPhase { kDecoded, kAdmitted };
  std::optional<ApiError> record_writer(const Call& call, RecordPhase phase,
                                        const nlohmann::json& old, nlohmann::json& object);
  // Everything an update or patch goes through between prepare_update and the write, in
  // upstream's order: managedFields, defaults, mutating admission, validation, the kind's
  // strategy, custom resource rules, validating admission. `current`: the stored object.
  std::optional<ApiError> admit_update(const Call& call, nlohmann::json& updated,
                                       const nlohmann::json& current);
  // The validating admission plugins (ResourceQuota charges here): last before the write.
  std::optional<ApiError> admit_final(const Call& call, const nlohmann::json& object,
                                      const nlohmann::json* old);

  store::Store& store_;
  WatchCache& cache_;
  Strategies& strategies_;
  const Clock& clock_;
  std::shared_ptr<const api::SchemaSet> schemas_;
  std::shared_ptr<const api::ResourceRegistry> registry_;
  AdmissionPlugins admission_;
};

}  // namespace k3c::apiserver

// CREATE, UPDATE, PATCH and DELETE through the store (see rest.h).
#include <algorithm>
#include <charconv>

#include "api/json_fields.h"
#include "api/patch.h"
#include "api/strategic_merge.h"
#include "core/ids.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/admission.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/custom_resource.h"
#include "roles/apiserver/field_ownership.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/object_meta.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/service_account_admission.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

// Unconditional updates retry this often when another writer got in between.
constexpr int kUpdateAttempts = 8;
// Creates with generateName try this many names (upstream's maxNameGenerationCreateAttempts).
constexpr int kGenerateNameAttempts = 8;

std::string meta_rv(const json& o) {
  auto m = o.find("metadata");
  if (m == o.end() || !m->is_object()) return "";
  auto rv = m->find("resourceVersion");
  return rv != m->end() && rv->is_string() ? rv->get<std::string>() : "";
}

// Namespace admission: no creates in a namespace that is missing or being terminated.
std::optional<ApiError> admit_namespace(WatchCache& cache, const Call& c, const std::string& name) {
  if (!c.resource.namespaced) return std::nullopt;
  // A namespace created a moment ago (a client creating it, then its content) counts.
  auto ns = cache.get_or_catch_up("/registry/namespaces/" + c.info.namespace_);
  if (!ns.is_ok()) return not_found("", "namespaces", c.info.namespace_);
  json o = json::parse((*ns)->json.text(), nullptr, false);
  if (o.is_object() && o["status"].is_object() && o["status"].value("phase", "") == "Terminating") {
    ApiError e = api_error(Code::kForbidden,
                           qualified_resource(c.resource.group, c.resource.plural) + " \"" + name +
                               "\" is forbidden: unable to create new content in namespace " +
                               c.info.namespace_ + " because it is being terminated");
    e.name = name;
    e.group = c.resource.group;
    e.kind = c.resource.plural;
    return e;
  }
  return std::nullopt;
}

// NamespaceLifecycle: the namespaces the server creates at start are never deleted.
std::optional<ApiError> refuse_immortal_namespace(const Call& c) {
  if (!c.resource.group.empty() || c.resource.plural != "namespaces") return std::nullopt;
  for (const char* immortal : kBuiltinNamespaces) {
    if (c.info.name != immortal) continue;
    ApiError e =
        api_error(Code::kForbidden, "namespaces \"" + c.info.name +
                                        "\" is forbidden: this namespace may not be deleted");
    e.name = c.info.name;
    e.kind = "namespaces";
    return e;
  }
  return std::nullopt;
}

// DeleteOptions as upstream's delete handlers read them: from the body when there is one,
// else from the query; then checked as its ValidateDeleteOptions checks them (422
// `DeleteOptions.meta.k8s.io "" is invalid: ...`).
ApiResult<json> delete_options(const http::Request& r, const BodyCodecs& codecs) {
  json options = json::object();
  if (!r.body.empty()) {
    auto body = decode_body(r, codecs);
    if (!body.ok()) return body.error();
    if (!body.value().is_object()) return bad_request("DeleteOptions must be an object");
    options = std::move(body.value());
  } else {
    if (auto g = r.param("gracePeriodSeconds"); g && !g->empty()) {
      int64_t grace = 0;
      auto [end, ec] = std::from_chars(g->data(), g->data() + g->size(), grace);
      if (ec != std::errc() || end != g->data() + g->size())
        return bad_request("invalid gracePeriodSeconds: \"" + std::string(*g) + "\"");
      options["gracePeriodSeconds"] = grace;
    }
    if (auto p = r.param("propagationPolicy")) options["propagationPolicy"] = std::string(*p);
    if (auto o = r.param("orphanDependents")) options["orphanDependents"] = *o == "true";
    for (auto v : r.params("dryRun")) options["dryRun"].push_back(std::string(v));
  }
  // A null field is an unset one (as Go's decoding into pointers); anything else must have
  // its type.
  for (const char* field : {"propagationPolicy", "orphanDependents", "dryRun"})
    if (options.contains(field) && options[field].is_null()) options.erase(field);
  if (options.contains("dryRun")) {
    const json& values = options["dryRun"];
    const bool strings =
        values.is_array() &&
        std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_string(); });
    if (!strings) return bad_request("DeleteOptions.dryRun must be a list of strings");
  }
  std::vector<StatusCause> causes;
  const json policy = options.value("propagationPolicy", json());
  if (!policy.is_null() && options.contains("orphanDependents") &&
      !options["orphanDependents"].is_null()) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + policy.dump() +
                          ": orphanDependents and deletionPropagation cannot be both set",
                      "propagationPolicy"});
  }
  if (!policy.is_null() && policy != "Foreground" && policy != "Background" && policy != "Orphan") {
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: " + policy.dump() +
                          ": supported values: \"Foreground\", \"Background\", \"Orphan\", "
                          "\"nil\"",
                      "propagationPolicy"});
  }
  std::vector<std::string> dry_run;
  for (const auto& v : options.value("dryRun", json::array()))
    dry_run.push_back(v.get<std::string>());
  if (auto problem = dry_run_problem(dry_run)) causes.push_back(std::move(*problem));
  if (!causes.empty()) return invalid("meta.k8s.io", "DeleteOptions", "", std::move(causes));
  // orphanDependents, deprecated, is the Orphan (or Background) policy.
  if (options.contains("orphanDependents") && options["orphanDependents"].is_boolean())
    options["propagationPolicy"] =
        options["orphanDependents"].get<bool>() ? "Orphan" : "Background";
  return options;
}

ApiError store_error(const Call& c, const Status& s) {
  switch (s.code()) {
    case Code::kNotFound:
      return not_found(c.resource.group, c.resource.plural, c.info.name);
    case Code::kConflict:
      return object_modified(c.resource.group, c.resource.plural, c.info.name);
    default:
      return from_status(s);
  }
}

}  // namespace

WriteContext Rest::write_context(const Call& c) const {
  return {c.info.subresource, c.request.peer ? &*c.request.peer : nullptr, clock_.wall_now()};
}

std::optional<ApiError> Rest::admit(const Call& c, json& object, const json* old) {
  if (!c.info.subresource.empty()) return std::nullopt;
  AdmissionAttributes a{c.resource, c.info.namespace_, c.info.subresource, old == nullptr,
                        actions::dry_run(c.request)};
  apply_object_defaults(object, *schemas_, c.resource);
  if (auto e = admission_.mutate(a, object, old)) return e;
  return validate_object(object, old, *schemas_, c.resource);
}

std::optional<ApiError> Rest::record_writer(const Call& c, RecordPhase phase, const json& old,
                                            json& object) {
  const bool custom = c.custom || (c.resource.group == kCrdGroup &&
                                   c.resource.plural == "customresourcedefinitions");
  if (phase != (custom ? RecordPhase::kAdmitted : RecordPhase::kDecoded)) return std::nullopt;
  // Decoding defaults the object upstream; admit() defaults it again after mutating admission
  // (for what the plugins added), which changes nothing already defaulted.
  if (!custom && c.info.subresource.empty()) apply_object_defaults(object, *schemas_, c.resource);
  return record_update(c, *schemas_, old, object, clock_.wall_now());
}

std::optional<ApiError> Rest::admit_update(const Call& c, json& updated, const json& current) {
  std::optional<ApiError> unrecorded = record_writer(c, RecordPhase::kDecoded, current, updated);
  if (auto e = admit(c, updated, &current)) return e;
  if (auto e = strategies_.before_update(c.resource, updated, current, write_context(c))) return e;
  if (auto e = admit_custom(c, updated, &current)) return e;
  if (!unrecorded) unrecorded = record_writer(c, RecordPhase::kAdmitted, current, updated);
  if (unrecorded) return unrecorded;
  return admit_final(c, updated, &current);
}

std::optional<ApiError> Rest::admit_final(const Call& c, const json& object, const json* old) {
  AdmissionAttributes a{c.resource, c.info.namespace_, c.info.subresource, old == nullptr,
                        actions::dry_run(c.request)};
  return admission_.validate(a, object, old);
}

std::variant<Rest::Current, http::Response> Rest::read_current(const Call& c) {
  auto o = cache_.get(c.resource.storage_key(c.info.namespace_, c.info.name), 0);
  if (!o.is_ok()) return error_response(store_error(c, o.status()));
  json object = json::parse((*o)->json.text(), nullptr, false);
  if (!object.is_object())
    return error_response(from_status(error(Code::kInternal, "stored object is not JSON")));
  auto in_version = in_call_version(c, std::move(object));
  if (!in_version.is_ok()) return error_response(from_status(in_version.status()));
  return Current{std::move(*in_version), (*o)->revision};
}

http::Response Rest::create(const Call& c) {
  auto mode = write_options(c.request);
  if (!mode.ok()) return error_response(mode.error());
  auto body = decode_object(c.request, codecs(), c.resource, mode.value());
  if (!body.ok()) return error_response(body.error());
  return create_object(c, std::move(body.value().object), false, body.value().warnings);
}

http::Response Rest::create_object(const Call& c, json object, bool applied,
                                   const std::vector<std::string>& warnings) {
  // Upstream's mutating admission runs before the name is generated: it knows a pod by its
  // generateName until then.
  const json& meta = api::member(object, "metadata");
  const bool generated = api::text(meta, "name").empty();
  const std::string requested_name =
      generated ? api::text(meta, "generateName") : api::text(meta, "name");
  if (auto e = prepare_create(object, c.resource, c.info, clock_.wall_now()))
    return error_response(*e);
  std::string name = object["metadata"]["name"];
  if (auto e = admit_namespace(cache_, c, name)) return error_response(*e);
  // Server-side apply brings its own managedFields; every other create is an Update. A field
  // manager's error is answered after admission's own, as upstream's never fails a write.
  static const json kNone;
  auto record = [&](RecordPhase phase) {
    return applied ? std::nullopt : record_writer(c, phase, kNone, object);
  };
  std::optional<ApiError> unrecorded = record(RecordPhase::kDecoded);
  if (c.resource.group.empty() && c.resource.plural == "pods" && !c.custom) {
    if (auto e = admit_pod_service_account(cache_, c.info.namespace_, requested_name, object))
      return error_response(*e);
  }
  if (auto e = admit(c, object, nullptr)) return error_response(*e);
  if (auto e = strategies_.before_create(c.resource, object, write_context(c)))
    return error_response(*e);
  if (auto e = admit_custom(c, object, nullptr)) return error_response(*e);
  if (!unrecorded) unrecorded = record(RecordPhase::kAdmitted);
  if (unrecorded) return error_response(*unrecorded);
  if (auto e = admit_final(c, object, nullptr)) return error_response(*e);
  const std::string ns = c.resource.namespaced ? c.info.namespace_ : "";
  auto respond = [&](int status, std::string out) {
    http::Response r = json_response(status, std::move(out));
    add_warnings(r, warnings);
    return r;
  };
  std::string key = c.resource.storage_key(ns, name);
  if (actions::dry_run(c.request)) {
    // Upstream's dry-run storage still refuses a name that is taken.
    if (store_.get(key).is_ok())
      return error_response(already_exists(c.resource.group, c.resource.plural, name));
    return respond(201, object.dump());
  }
  auto bytes = stored_bytes(c, object);
  if (!bytes.is_ok()) return error_response(bad_request(bytes.status().message()));
  auto created = store_.create(key, *bytes, strategies_.lease_seconds(c.resource));
  // A generated name that is taken is generated again, as upstream's registry does (8
  // attempts in all): with 27^5 suffixes, 10,000 pods of one ReplicaSet collide about 3 times.
  for (int attempt = 1; generated && attempt < kGenerateNameAttempts && !created.is_ok() &&
                        created.status().code() == Code::kAlreadyExists;
       ++attempt) {
    name = requested_name + random_name_suffix();
    object["metadata"]["name"] = name;
    key = c.resource.storage_key(ns, name);
    bytes = stored_bytes(c, object);
    if (!bytes.is_ok()) return error_response(bad_request(bytes.status().message()));
    created = store_.create(key, *bytes, strategies_.lease_seconds(c.resource));
  }
  if (!created.is_ok()) {
    if (created.status().code() == Code::kAlreadyExists) {
      return error_response(already_exists(c.resource.group, c.resource.plural, name));
    }
    return error_response(from_status(created.status()));
  }
  return respond(201, written_answer(c, key, std::move(object), *bytes, created->mod_revision));
}

namespace {

bool has_finalizers(const json& object) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return false;
  auto f = m->find("finalizers");
  return f != m->end() && f->is_array() && !f->empty();
}

// Upstream's rule: an object marked for deletion is removed by the update that takes away
// its last finalizer (not by any other update: a terminating pod or namespace without
// finalizers waits for its kubelet or controller to delete it again).
bool finalized_by_update(const json& updated, const json& current) {
  auto meta = updated.find("metadata");
  if (meta == updated.end() || !meta->contains("deletionTimestamp")) return false;
  // A graceful deletion (a pod on a node) still waits for its kubelet.
  auto grace = meta->find("deletionGracePeriodSeconds");
  if (grace != meta->end() && grace->is_number() && grace->get<int64_t>() != 0) return false;
  return !has_finalizers(updated) && has_finalizers(current);
}

}  // namespace

http::Response Rest::write_updated(const Call& c, json updated, const json& current,
                                   int64_t revision, int status) {
  std::string key = c.resource.storage_key(c.info.namespace_, c.info.name);
  if (finalized_by_update(updated, current)) {
    auto removed = store_.remove(key, revision);
    if (!removed.is_ok()) return error_response(store_error(c, removed.status()));
    return json_response(200,
                         make_cached(key, std::move(updated), removed->mod_revision).json.text());
  }
  auto bytes = stored_bytes(c, updated);
  if (!bytes.is_ok()) return error_response(bad_request(bytes.status().message()));
  auto written = store_.update(key, *bytes, revision, strategies_.lease_seconds(c.resource));
  if (!written.is_ok()) return error_response(store_error(c, written.status()));
  return json_response(status,
                       written_answer(c, key, std::move(updated), *bytes, written->mod_revision));
}

http::Response Rest::update(const Call& c) {
  auto mode = write_options(c.request);
  if (!mode.ok()) return error_response(mode.error());
  auto decoded = decode_object(c.request, codecs(), c.resource, mode.value());
  if (!decoded.ok()) return error_response(decoded.error());
  ApiResult<json> body(std::move(decoded.value().object));
  std::string precondition = meta_rv(body.value());
  for (int attempt = 0; attempt < kUpdateAttempts; ++attempt) {
    auto cur = read_current(c);
    if (auto* r = std::get_if<http::Response>(&cur)) return std::move(*r);
    Current& current = std::get<Current>(cur);
    if (!precondition.empty() && precondition != std::to_string(current.revision)) {
      return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
    }
    // The current object without its resourceVersion, as the update compares and keeps it
    // (nothing below reads it): stripped in place, not copied.
    current.object = without_resource_version(std::move(current.object));
    const json& current_bare = current.object;
    auto updated =
        prepare_update(body.value(), current_bare, c.resource, c.info, NewUid::kPrecondition);
    if (!updated.ok()) return error_response(updated.error());
    if (auto e = admit_update(c, updated.value(), current.object)) return error_response(*e);
    if (updated.value() == current_bare || actions::dry_run(c.request)) {
      json out = updated.value();
      http::Response r =
          actions::dry_run(c.request)
              ? json_response(200, out.dump())
              : json_response(200, make_cached("", std::move(out), current.revision).json.text());
      add_warnings(r, decoded.value().warnings);
      return r;
    }
    auto r = write_updated(c, std::move(updated.value()), current.object, current.revision, 200);
    add_warnings(r, decoded.value().warnings);
    // Lost a race with another writer: retry unless the client asked for this revision.
    if (r.status == 409 && precondition.empty()) continue;
    return r;
  }
  return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
}

http::Response Rest::patch(const Call& c) {
  std::string type(c.request.header("content-type").value_or(""));
  type = type.substr(0, type.find(';'));
  if (type == "application/apply-patch+yaml") return apply(c);
  if (type != "application/json-patch+json" && type != "application/merge-patch+json" &&
      type != "application/strategic-merge-patch+json") {
    return error_response(api_error(
        Code::kUnsupportedMediaType,
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/strategic-merge-patch+json, application/apply-patch+yaml"));
  }
  if (c.custom && type == "application/strategic-merge-patch+json") {
    // Custom resources have no schema with merge keys; upstream refuses the type for them.
    return error_response(api_error(
        Code::kUnsupportedMediaType,
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
  }
  auto mode = write_options(c.request);
  if (!mode.ok()) return error_response(mode.error());
  auto patch = decode_body(c.request, codecs());
  if (!patch.ok()) return error_response(patch.error());
  for (int attempt = 0; attempt < kUpdateAttempts; ++attempt) {
    if (type == "application/merge-patch+json") {
      if (auto r = patch_status_text(c, patch.value(), mode.value())) return std::move(*r);
    }
    auto cur = read_current(c);
    if (auto* r = std::get_if<http::Response>(&cur)) return std::move(*r);
    Current& current = std::get<Current>(cur);
    json patched;
    if (type == "application/json-patch+json") {
      auto applied = api::apply_json_patch(current.object, patch.value());
      if (!applied.is_ok()) {
        ApiError e = from_status(applied.status());
        return error_response(e);
      }
      patched = std::move(applied).value();
    } else if (type == "application/strategic-merge-patch+json") {
      auto applied = api::apply_strategic_merge_patch(current.object, patch.value(),
                                                      schemas_->kind(c.resource.gvk()));
      if (!applied.is_ok()) return error_response(from_status(applied.status()));
      patched = std::move(applied).value();
    } else {
      patched = api::apply_merge_patch(current.object, patch.value());
    }
    // The stored object carries its resourceVersion, so the patched one differs from it only
    // when the patch set one (kubectl diff keeps it): that is a precondition.
    std::string wanted = meta_rv(patched);
    if (!wanted.empty() && wanted != std::to_string(current.revision)) {
      return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
    }
    auto warnings = check_patched(patched, *schemas_, c.resource, mode.value());
    if (!warnings.ok()) return error_response(warnings.error());
    // From here the current object stands without its resourceVersion, as the update
    // compares and keeps it (nothing below reads it): stripped in place, not copied (the
    // patch above needed it, for a JSON patch's test of /metadata/resourceVersion). The
    // patched object is moved, not copied.
    current.object = without_resource_version(std::move(current.object));
    const json& current_bare = current.object;
    auto updated = prepare_update(without_resource_version(std::move(patched)), current_bare,
                                  c.resource, c.info, NewUid::kImmutable);
    if (!updated.ok()) return error_response(updated.error());
    if (auto e = admit_update(c, updated.value(), current.object)) return error_response(*e);
    if (updated.value() == current_bare || actions::dry_run(c.request)) {
      http::Response r = json_response(
          200, make_cached("", std::move(updated.value()), current.revision).json.text());
      add_warnings(r, warnings.value());
      return r;
    }
    auto r = write_updated(c, std::move(updated.value()), current.object, current.revision, 200);
    add_warnings(r, warnings.value());
    // Lost a race: patch the new state (a pinned resourceVersion then fails the check above).
    if (r.status == 409) continue;
    return r;
  }
  return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
}

http::Response Rest::finish_delete(const Call& c, const Current& current) {
  std::string key = c.resource.storage_key(c.info.namespace_, c.info.name);
  auto removed = store_.remove(key, current.revision);
  if (!removed.is_ok()) return error_response(store_error(c, removed.status()));
  // Upstream answers some kinds' deletes with the object as it was last stored.
  if (c.resource.returns_deleted_object) return json_response(200, current.object.dump());
  json status = success_status();
  status["details"] = {{"name", c.info.name},
                       {"kind", c.resource.plural},
                       {"uid", current.object["metadata"].value("uid", "")}};
  if (!c.resource.group.empty()) status["details"]["group"] = c.resource.group;
  return json_response(200, status.dump());
}

http::Response Rest::remove(const Call& c) {
  auto decoded = delete_options(c.request, codecs());
  if (!decoded.ok()) return error_response(decoded.error());
  const json& options = decoded.value();
  if (auto e = refuse_immortal_namespace(c)) return error_response(*e);
  const std::string policy = options.value("propagationPolicy", "");
  const bool dry_run = options.contains("dryRun") && !options["dryRun"].empty();
  for (int attempt = 0; attempt < kUpdateAttempts; ++attempt) {
    auto cur = read_current(c);
    if (auto* r = std::get_if<http::Response>(&cur)) return std::move(*r);
    Current& current = std::get<Current>(cur);
    json& meta = current.object["metadata"];
    // Checked early as upstream's rest.BeforeDelete does, which names the kind.
    if (auto pre = options.find("preconditions"); pre != options.end() && pre->is_object()) {
      std::string uid = pre->value("uid", ""), rv = pre->value("resourceVersion", "");
      if (!uid.empty() && uid != meta.value("uid", "")) {
        return error_response(conflict(c.resource.group, c.resource.kind, c.info.name,
                                       "the UID in the precondition (" + uid +
                                           ") does not match the UID in record (" +
                                           meta.value("uid", "") +
                                           "). The object might have been deleted and then "
                                           "recreated"));
      }
      if (!rv.empty() && rv != std::to_string(current.revision)) {
        return error_response(conflict(c.resource.group, c.resource.kind, c.info.name,
                                       "the ResourceVersion in the precondition (" + rv +
                                           ") does not match the ResourceVersion in record (" +
                                           std::to_string(current.revision) +
                                           "). The object might have been modified"));
      }
    }
    if (dry_run) return json_response(200, current.object.dump());
    json updated = without_resource_version(current.object);
    json& m = updated["metadata"];
    json finalizers =
        m.contains("finalizers") && m["finalizers"].is_array() ? m["finalizers"] : json::array();
    auto add_finalizer = [&](const char* f) {
      if (std::find(finalizers.begin(), finalizers.end(), f) == finalizers.end())
        finalizers.push_back(f);
    };
    if (policy == "Orphan") add_finalizer("orphan");
    if (policy == "Foreground") add_finalizer("foregroundDeletion");
    // A CRD goes once the CRD controller has deleted its objects (crd_controller.h).
    if (c.resource.group == kCrdGroup && c.resource.plural == "customresourcedefinitions")
      add_finalizer(kCrdCleanupFinalizer.data());
    bool is_namespace = c.resource.group.empty() && c.resource.plural == "namespaces";
    bool graceful_pod = c.resource.group.empty() && c.resource.plural == "pods" &&
                        !updated["spec"].value("nodeName", "").empty() &&
                        updated["status"].value("phase", "") != "Succeeded" &&
                        updated["status"].value("phase", "") != "Failed";
    int64_t grace = options.value("gracePeriodSeconds", int64_t{-1});
    if (graceful_pod && grace < 0)
      grace = updated["spec"].value("terminationGracePeriodSeconds", int64_t{30});
    if (graceful_pod && grace == 0) graceful_pod = false;
    // A terminating namespace goes once the namespace controller has emptied it and removed
    // its spec finalizers (through /finalize), then deletes it again.
    bool namespace_finalized =
        is_namespace && m.contains("deletionTimestamp") &&
        (!updated["spec"].contains("finalizers") || updated["spec"]["finalizers"].empty());
    if (finalizers.empty() && (!is_namespace || namespace_finalized) && !graceful_pod)
      return finish_delete(c, current);
    // Marked, not removed: the finalizers' owners (or the kubelet, or the namespace
    // controller) finish the deletion.
    if (!m.contains("deletionTimestamp")) {
      auto when = clock_.wall_now() + std::chrono::seconds(graceful_pod ? grace : 0);
      m["deletionTimestamp"] = rfc3339(when);
      m["deletionGracePeriodSeconds"] = graceful_pod ? grace : 0;
    }
    if (!finalizers.empty()) m["finalizers"] = finalizers;
    if (is_namespace) updated["status"]["phase"] = "Terminating";
    std::string key = c.resource.storage_key(c.info.namespace_, c.info.name);
    auto bytes = stored_bytes(c, updated);
    if (!bytes.is_ok()) return error_response(bad_request(bytes.status().message()));
    auto written = store_.update(key, *bytes, current.revision);
    if (!written.is_ok()) {
      if (written.status().code() == Code::kConflict) continue;
      return error_response(store_error(c, written.status()));
    }
    return json_response(200,
                         written_answer(c, key, std::move(updated), *bytes, written->mod_revision));
  }
  return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
}

http::Response Rest::remove_collection(const Call& c) {
  auto filter = filter_for(c);
  if (!filter.ok()) return error_response(filter.error());
  if (auto options = delete_options(c.request, codecs()); !options.ok())
    return error_response(options.error());
  auto matching = cache_.list(filter.value(), 0, "", 0);
  if (!matching.is_ok()) return error_response(from_status(matching.status()));
  for (const auto& item : matching->items) {
    RequestInfo one = c.info;
    one.name = item->name;
    one.namespace_ = item->namespace_;
    auto r = remove({one, c.resource, c.request, c.custom});
    if (r.status >= 400 && r.status != 404) return r;
  }
  // Upstream answers with the list it deleted, as it was listed.
  return list_answer(c, OutputFormat::kJson, filter.value(), *matching);
}

Status Rest::ensure(const api::Resource& resource, const std::string& ns, json object) {
  RequestInfo info;
  info.namespace_ = ns;
  info.verb = "create";
  if (auto e = prepare_create(object, resource, info, clock_.wall_now()))
    return error(e->code, e->message);
  if (auto e = default_and_validate(object, nullptr, *schemas_, resource))
    return error(e->code, e->message);
  if (auto e = strategies_.before_create(resource, object, {"", nullptr, clock_.wall_now()}))
    return error(e->code, e->message);
  std::string key = resource.storage_key(ns, object["metadata"]["name"].get<std::string>());
  auto created = store_.create(key, object.dump());
  if (!created.is_ok() && created.status().code() != Code::kAlreadyExists) return created.status();
  return Status::ok();
}

}  // namespace k3c::apiserver

// Server-side apply: PATCH with Content-Type application/apply-patch+yaml (YAML or JSON).
// The configuration merges into the live object (or creates it) under the field ownership
// rules of api/field_manager.h; conflicts with other managers answer 409 unless ?force=true.
#include "api/field_manager.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/admission.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/field_ownership.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/object_meta.h"
#include "roles/apiserver/rest.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kApplyAttempts = 8;

// upstream's NewApplyConflict: 409 Conflict, one cause per contested field.
ApiError apply_conflict(const std::vector<api::ApplyConflict>& conflicts) {
  ApiError e = api_error(Code::kConflict, api::conflict_message(conflicts));
  for (const auto& c : conflicts) {
    e.causes.push_back(
        {"FieldManagerConflict", "conflict with " + c.manager, api::path_string(c.path)});
  }
  return e;
}

// A string member, or "" when absent or not a string.
std::string field_text(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// The configuration's own checks: an object of this resource's version, named as the URL.
std::optional<ApiError> check_configuration(json& config, const Call& c) {
  if (!config.is_object())
    return bad_request("the apply configuration must be a YAML or JSON object");
  std::string version = field_text(config, "apiVersion");
  if (version != c.resource.group_version()) {
    return bad_request("Incorrect version specified in apply patch. Specified patch version: " +
                       version + ", expected: " + c.resource.group_version());
  }
  if (!config.contains("metadata") || !config["metadata"].is_object()) {
    config["metadata"] = json::object();
  }
  json& meta = config["metadata"];
  std::string name = field_text(meta, "name");
  if (name.empty()) {
    meta["name"] = c.info.name;
  } else if (name != c.info.name) {
    return bad_request("the name of the object (" + name +
                       ") does not match the name on the URL (" + c.info.name + ")");
  }
  return std::nullopt;
}

}  // namespace

http::Response Rest::apply(const Call& c) {
  if (c.request.param("fieldManager").value_or("").empty()) {
    return error_response(invalid(
        "meta.k8s.io", "PatchOptions", "",
        {{"FieldValueRequired", "Required value: is required for apply patch", "fieldManager"}}));
  }
  auto writer = writer_of(c, clock_.wall_now());
  if (!writer.ok()) return error_response(writer.error());
  bool force = c.request.param("force").value_or("") == "true";
  auto body = decode_body(c.request, codecs());
  if (!body.ok()) return error_response(body.error());
  json config = std::move(body.value());
  if (auto e = check_configuration(config, c)) return error_response(*e);
  // A resourceVersion in the configuration is a precondition, as in an update.
  std::string precondition = field_text(config["metadata"], "resourceVersion");
  config = without_resource_version(std::move(config));
  const api::MessageType* type = schemas_->kind(c.resource.gvk());
  const std::string key = c.resource.storage_key(c.info.namespace_, c.info.name);

  for (int attempt = 0; attempt < kApplyAttempts; ++attempt) {
    auto stored = cache_.get(key, 0);
    if (!stored.is_ok() && stored.status().code() != Code::kNotFound) {
      return error_response(from_status(stored.status()));
    }
    if (!stored.is_ok()) {
      if (!precondition.empty())
        return error_response(not_found(c.resource.group, c.resource.plural, c.info.name));
      auto applied = api::apply_configuration(json(), config, type, writer.value(), force);
      if (!applied.is_ok()) return error_response(from_status(applied.status()));
      auto r = create_object(c, std::move(applied->object), true);
      if (r.status == 409) continue;  // created by someone else meanwhile: apply to that
      return r;
    }
    auto in_version = in_call_version(c, json::parse((*stored)->json.text(), nullptr, false));
    if (!in_version.is_ok()) return error_response(from_status(in_version.status()));
    json live = std::move(*in_version);
    int64_t revision = (*stored)->revision;
    if (!precondition.empty() && precondition != std::to_string(revision)) {
      return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
    }
    auto applied = api::apply_configuration(live, config, type, writer.value(), force);
    if (!applied.is_ok()) return error_response(from_status(applied.status()));
    if (!applied->conflicts.empty()) return error_response(apply_conflict(applied->conflicts));
    json old = without_resource_version(live);
    auto updated = prepare_update(without_resource_version(std::move(applied->object)), old,
                                  c.resource, c.info, NewUid::kImmutable);
    if (!updated.ok()) return error_response(updated.error());
    if (!c.info.subresource.empty()) {
      if (auto e = default_and_validate(updated.value(), &live, *schemas_, c.resource))
        return error_response(*e);
    }
    if (auto e = admit(c, updated.value(), &live)) return error_response(*e);
    if (auto e = admit_custom(c, updated.value(), &live)) return error_response(*e);
    if (auto e = strategies_.before_update(c.resource, updated.value(), live, write_context(c)))
      return error_response(*e);
    if (auto e = admit_final(c, updated.value(), &live)) return error_response(*e);
    if (updated.value() == old || actions::dry_run(c.request)) {
      return json_response(200, make_cached("", std::move(updated.value()), revision).json.text());
    }
    auto r = write_updated(c, std::move(updated.value()), live, revision, 200);
    if (r.status == 409 && precondition.empty()) continue;  // lost a race: apply again
    return r;
  }
  return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
}

}  // namespace k3c::apiserver

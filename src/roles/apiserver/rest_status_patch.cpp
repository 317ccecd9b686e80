// A status merge patch written by editing the cached text (see rest.h, patch_status_text).
//
// A running pod's status write is the API server's most frequent write on a busy node (one
// or more per pod started, from its kubelet). Through the parsed object it cost a parse of
// the whole pod, a copy for the patch, a dump and two trees freed; here only status and
// metadata.managedFields are parsed and written again, and spec and the rest of metadata
// (more than half of a pod's bytes) are copied as text. Everything the parsed path does to
// such a write holds here: the resourceVersion and uid preconditions, the field validation
// of what the patch brings, the no-op answer, the managedFields entry (the same function
// on the same members), the stored bytes (those a dump of the parsed object gives) and the
// answer.
#include "api/field_manager.h"
#include "api/patch.h"
#include "core/json_scan.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/csr_strategy.h"
#include "roles/apiserver/field_ownership.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/rest.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;
namespace js = json_scan;

// A patch of the status and of nothing else but metadata preconditions (uid,
// resourceVersion), as kubelets and controllers send them.
bool status_only(const json& patch) {
  if (!patch.is_object() || !patch.contains("status") || !patch["status"].is_object()) return false;
  for (auto& [key, value] : patch.items()) {
    if (key == "status") continue;
    if (key != "metadata" || !value.is_object()) return false;
    for (auto& [field, v] : value.items()) {
      if ((field != "uid" && field != "resourceVersion") || !v.is_string()) return false;
    }
  }
  return true;
}

std::string_view precondition(const json& patch, const char* field) {
  auto meta = patch.find("metadata");
  if (meta == patch.end()) return {};
  auto v = meta->find(field);
  return v == meta->end() ? std::string_view() : std::string_view(v->get_ref<const std::string&>());
}

}  // namespace

std::optional<http::Response> Rest::patch_status_text(const Call& c, const json& patch,
                                                      FieldValidation mode) {
  // Kinds whose status writes something else reads (a Service's cluster IP strategy), custom
  // resources (their own admission) and stored versions other than the call's take the
  // parsed path, as do dry runs.
  const bool plain_kind = !c.custom && stored_as_sent(c) &&
                          !(c.resource.group.empty() && c.resource.plural == "services") &&
                          !csr::is_csr(c.resource);
  if (c.info.subresource != "status" || !plain_kind || actions::dry_run(c.request) ||
      !status_only(patch))
    return std::nullopt;
  const std::string key = c.resource.storage_key(c.info.namespace_, c.info.name);
  auto cached = cache_.get(key, 0);
  if (!cached.is_ok()) return std::nullopt;  // the parsed path answers a missing object
  const std::string text = (*cached)->json.text();
  const int64_t revision = (*cached)->revision;
  if (std::string_view rv = precondition(patch, "resourceVersion");
      !rv.empty() && rv != std::to_string(revision)) {
    return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
  }
  // A uid that is not the object's: the parsed path words the refusal.
  if (std::string_view uid = precondition(patch, "uid"); !uid.empty() && uid != (*cached)->uid)
    return std::nullopt;
  const auto meta_text = js::member(text, "metadata");
  const auto status_text = js::member(text, "status");
  const auto managed_text = meta_text ? js::member(*meta_text, "managedFields") : std::nullopt;
  if (!status_text || !managed_text) return std::nullopt;
  json old_status = json::parse(*status_text, nullptr, /*allow_exceptions=*/false);
  if (!old_status.is_object()) return std::nullopt;

  // What the patch makes of the status, checked as the parsed path checks the patched object
  // (the rest of it is the stored object's, checked when it was written).
  json checked = {{"apiVersion", c.resource.group_version()},
                  {"kind", c.resource.kind},
                  {"status", api::apply_merge_patch(old_status, patch["status"])}};
  auto warnings = check_patched(checked, *schemas_, c.resource, mode);
  if (!warnings.ok()) return error_response(warnings.error());
  json& new_status = checked["status"];
  if (new_status == old_status) {
    // Nothing changes: the object as it is, not written (nor its managedFields touched).
    http::Response r = json_response(200, text);
    add_warnings(r, warnings.value());
    return r;
  }

  // The writer's managedFields entry, from the same members the parsed path compares.
  json managed = json::parse(*managed_text, nullptr, /*allow_exceptions=*/false);
  if (!managed.is_array()) return std::nullopt;  // read (and kept) as the parsed path reads it
  auto writer = writer_of(c, clock_.wall_now());
  if (!writer.ok()) return error_response(writer.error());
  json old_part = {{"metadata", {{"managedFields", std::move(managed)}}},
                   {"status", std::move(old_status)}};
  json new_part = {{"status", std::move(new_status)}};
  auto fields = api::managed_fields_after_update(old_part, new_part,
                                                 schemas_->kind(c.resource.gvk()), writer.value());
  if (!fields.is_ok()) return std::nullopt;  // the parsed path answers (and words) the error

  // The stored bytes: status and managedFields written again, resourceVersion left out.
  const std::string status_json = new_part["status"].dump();
  const std::string managed_json = fields->empty() ? std::string() : fields->dump();
  auto stored = js::edited_object(text, [&](std::string_view k, std::string_view value,
                                            std::string& replacement) {
    if (k == "status") {
      replacement = status_json;
      return js::MemberEdit::kReplace;
    }
    if (k != "metadata") return js::MemberEdit::kKeep;
    auto meta = js::edited_object(value, [&](std::string_view m, std::string_view, std::string& r) {
      if (m == "resourceVersion") return js::MemberEdit::kDrop;
      if (m != "managedFields") return js::MemberEdit::kKeep;
      if (managed_json.empty()) return js::MemberEdit::kDrop;
      r = managed_json;
      return js::MemberEdit::kReplace;
    });
    if (!meta) return js::MemberEdit::kKeep;  // cannot happen: metadata scanned above
    replacement = std::move(*meta);
    return js::MemberEdit::kReplace;
  });
  if (!stored) return std::nullopt;
  auto written = store_.update(key, *stored, revision, strategies_.lease_seconds(c.resource));
  if (!written.is_ok()) {
    // Another writer got in between: the parsed path patches the new state (and answers
    // the store's other errors in its words).
    return std::nullopt;
  }
  auto answer = with_resource_version(*stored, written->mod_revision);
  http::Response r = json_response(200, answer ? std::move(*answer) : *stored);
  add_warnings(r, warnings.value());
  return r;
}

}  // namespace k3c::apiserver

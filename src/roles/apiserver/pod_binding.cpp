// pods/binding and /namespaces/{ns}/bindings: the scheduler's way of placing a pod. Sets
// spec.nodeName once (a second binding is a Conflict on pods/binding, as upstream), merges
// the binding's annotations and marks the pod PodScheduled=True. Written straight to the
// store as upstream's BindingREST does, since spec.nodeName is immutable to updates.
#include "api/json_fields.h"
#include "core/ids.h"
#include "core/json_scan.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kBindingAttempts = 8;

// PodScheduled=True in a pod's status (an object).
void mark_scheduled(json& status, const std::string& now) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == "PodScheduled") {
      if (c.value("status", "") != "True") c["lastTransitionTime"] = now;
      c["status"] = "True";
      c.erase("reason");
      c.erase("message");
      return;
    }
  }
  conditions.push_back({{"type", "PodScheduled"},
                        {"status", "True"},
                        {"lastProbeTime", nullptr},
                        {"lastTransitionTime", now}});
}

}  // namespace

// Metadata (half a pod's bytes, with its managedFields) is copied as it is but for its
// resourceVersion, which stored objects do not carry.
std::optional<std::string> actions::bound_pod_text(std::string_view text, const std::string& node,
                                                   const std::string& now) {
  namespace js = json_scan;
  bool usable = true, edited_spec = false, edited_status = false;
  auto edited = js::edited_object(text, [&](std::string_view key, std::string_view value,
                                            std::string& replacement) {
    if (key == "metadata") {
      if (js::member(value, "deletionTimestamp")) usable = false;
      auto meta = js::edited_object(value, [](std::string_view k, std::string_view, std::string&) {
        return k == "resourceVersion" ? js::MemberEdit::kDrop : js::MemberEdit::kKeep;
      });
      if (!meta) usable = false;
      if (!usable) return js::MemberEdit::kKeep;
      replacement = std::move(*meta);
      return js::MemberEdit::kReplace;
    }
    if (key != "spec" && key != "status") return js::MemberEdit::kKeep;
    json part = json::parse(value, nullptr, /*allow_exceptions=*/false);
    if (!part.is_object()) {
      usable = false;
      return js::MemberEdit::kKeep;
    }
    if (key == "spec") {
      if (!api::text(part, "nodeName").empty()) usable = false;
      part["nodeName"] = node;
      edited_spec = true;
    } else {
      mark_scheduled(part, now);
      edited_status = true;
    }
    replacement = part.dump();
    return js::MemberEdit::kReplace;
  });
  if (!edited || !usable || !edited_spec || !edited_status) return std::nullopt;
  return edited;
}

http::Response Actions::bind(const Call& c, const std::string& url_name) {
  auto body = body_of(c, "v1", "Binding");
  if (!body.ok()) return error_response(body.error());
  json& binding = body.value();
  json& meta = binding["metadata"];
  std::string name = meta.value("name", "");
  if (url_name.empty() && name.empty()) {
    return error_response(
        invalid("", "Binding", "",
                {{"FieldValueRequired", "Required value: name or generateName is required",
                  "metadata.name"}}));
  }
  if (!url_name.empty() && !name.empty() && name != url_name) {
    return error_response(bad_request("name in URL does not match name in Binding object"));
  }
  if (name.empty()) name = url_name;
  const json& target = binding.value("target", json::object());
  std::string kind = target.is_object() ? target.value("kind", "") : "";
  std::string node = target.is_object() ? target.value("name", "") : "";
  std::vector<StatusCause> causes;
  if (!kind.empty() && kind != "Node") {
    causes.push_back(
        {"FieldValueNotSupported",
         "Unsupported value: \"" + kind + "\": supported values: \"Node\", \"<empty>\"",
         "target.kind"});
  }
  if (node.empty()) causes.push_back({"FieldValueRequired", "Required value", "target.name"});
  if (!causes.empty()) return error_response(invalid("", "Binding", name, std::move(causes)));
  const json annotations = meta.value("annotations", json::object());
  const std::string want_uid = meta.value("uid", "");
  const std::string want_rv = meta.value("resourceVersion", "");

  const api::Resource* pods = registry_->find("", "v1", "pods");
  const std::string key = pods->storage_key(c.info.namespace_, name);
  for (int attempt = 0; attempt < kBindingAttempts; ++attempt) {
    auto current = cache_.get(key, 0);
    if (!current.is_ok()) {
      if (current.status().code() == Code::kNotFound)
        return error_response(not_found("", "pods", name));
      return error_response(from_status(current.status()));
    }
    const CachedObject& cached = **current;
    // The binding's uid and resourceVersion are preconditions on the pod.
    if (!want_uid.empty() && want_uid != cached.uid) {
      return error_response(conflict("", "pods", name,
                                     "Precondition failed: UID in precondition: " + want_uid +
                                         ", UID in object meta: " + cached.uid));
    }
    if (!want_rv.empty() && want_rv != std::to_string(cached.revision)) {
      return error_response(object_modified("", "pods", name));
    }
    const std::string text = cached.json.text();
    const std::string now = rfc3339(clock_.wall_now());
    std::optional<std::string> stored;
    if (!annotations.is_object() || annotations.empty())
      stored = actions::bound_pod_text(text, node, now);
    if (!stored) {
      json pod = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (!pod.is_object())
        return error_response(api_error(Code::kInternal, "stored object is not JSON"));
      json& pmeta = pod["metadata"];
      if (pmeta.contains("deletionTimestamp")) {
        return error_response(
            conflict("", "pods/binding", name,
                     "pod " + name + " is being deleted, cannot be assigned to a host"));
      }
      std::string bound = api::text(api::member(pod, "spec"), "nodeName");
      if (!bound.empty()) {
        return error_response(
            conflict("", "pods/binding", name,
                     "pod " + name + " is already assigned to node \"" + bound + "\""));
      }
      pod["spec"]["nodeName"] = node;
      if (annotations.is_object() && !annotations.empty()) {
        for (auto& [k, v] : annotations.items()) pmeta["annotations"][k] = v;
      }
      json& status = pod["status"];
      if (!status.is_object()) status = json::object();
      mark_scheduled(status, now);
      pmeta.erase("resourceVersion");
      stored = pod.dump();
    }
    if (actions::dry_run(c.request)) return actions::created_success();
    auto written = store_.update(key, *stored, cached.revision);
    if (written.is_ok()) return actions::created_success();
    if (written.status().code() == Code::kConflict && want_rv.empty()) continue;
    if (written.status().code() == Code::kConflict)
      return error_response(object_modified("", "pods", name));
    if (written.status().code() == Code::kNotFound)
      return error_response(not_found("", "pods", name));
    return error_response(from_status(written.status()));
  }
  return error_response(object_modified("", "pods", name));
}

}  // namespace k3c::apiserver

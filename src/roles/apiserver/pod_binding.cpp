// pods/binding and /namespaces/{ns}/bindings: the scheduler's way of placing a pod. Sets
// spec.nodeName once (a second binding is a Conflict on pods/binding, as upstream), merges
// the binding's annotations and marks the pod PodScheduled=True. Written straight to the
// store as upstream's BindingREST does, since spec.nodeName is immutable to updates.
#include "api/json_fields.h"
#include "core/ids.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kBindingAttempts = 8;

void mark_scheduled(json& pod, const std::string& now) {
  json& status = pod["status"];
  if (!status.is_object()) status = json::object();
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
    auto current = actions::read(cache_, key);
    if (!current.ok()) {
      if (current.error().code == Code::kNotFound)
        return error_response(not_found("", "pods", name));
      return error_response(current.error());
    }
    json& pod = current.value().object;
    json& pmeta = pod["metadata"];
    // The binding's uid and resourceVersion are preconditions on the pod.
    if (!want_uid.empty() && want_uid != pmeta.value("uid", "")) {
      return error_response(conflict("", "pods", name,
                                     "Precondition failed: UID in precondition: " + want_uid +
                                         ", UID in object meta: " + pmeta.value("uid", "")));
    }
    if (!want_rv.empty() && want_rv != std::to_string(current.value().revision)) {
      return error_response(object_modified("", "pods", name));
    }
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
    mark_scheduled(pod, rfc3339(clock_.wall_now()));
    pmeta.erase("resourceVersion");
    if (actions::dry_run(c.request)) return actions::created_success();
    auto written = store_.update(key, pod.dump(), current.value().revision);
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

// Custom resources in the REST verbs: schema pruning, defaults and validation on every write,
// the CRD's own defaults and validation, and the scale subresource (see rest.h).
#include "api/patch.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/crd_schema.h"
#include "roles/apiserver/custom_resource.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/rest.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kCustomScaleAttempts = 8;

bool is_crd(const api::Resource& r) {
  return r.group == kCrdGroup && r.plural == "customresourcedefinitions";
}

std::string custom_name(const json& o) {
  const json& meta = o["metadata"];
  return meta.is_object() ? meta.value("name", "") : "";
}

std::string strict_message(const std::vector<std::string>& unknown) {
  std::string list;
  for (const auto& f : unknown) {
    if (!list.empty()) list += ", ";
    list += "unknown field \"" + f + "\"";
  }
  return "strict decoding error: " + list;
}

// ".spec.replicas" -> the value there, or null.
json value_at(const json& object, const std::string& path) {
  auto found = eval_json_path(object, path);
  return found.empty() ? json() : found.front();
}

// Sets ".spec.replicas" (a plain dotted path), making the objects on the way.
void set_at(json& object, const std::string& path, json value) {
  json* at = &object;
  size_t start = path.rfind('.', 0) == 0 ? 1 : 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object()) *at = json::object();
    if (dot == std::string::npos) {
      (*at)[key] = std::move(value);
      return;
    }
    at = &(*at)[key];
    start = dot + 1;
  }
}

// The autoscaling/v1 Scale of a custom resource, as upstream builds it from the CRD's paths.
json custom_scale_of(const json& object, const ScalePaths& paths) {
  const json& meta = object["metadata"];
  json scale_meta = json::object();
  for (const char* f : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (meta.contains(f)) scale_meta[f] = meta[f];
  }
  json spec_replicas = value_at(object, paths.spec_replicas);
  json status_replicas = value_at(object, paths.status_replicas);
  json status = {{"replicas", status_replicas.is_number_integer() ? status_replicas : json(0)}};
  if (!paths.label_selector.empty()) {
    json selector = value_at(object, paths.label_selector);
    if (selector.is_string()) status["selector"] = selector;
  }
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", std::move(scale_meta)},
          {"spec", {{"replicas", spec_replicas.is_number_integer() ? spec_replicas : json(0)}}},
          {"status", std::move(status)}};
}

}  // namespace

std::optional<ApiError> Rest::admit_custom(const Call& c, json& object, const json* old) {
  if (is_crd(c.resource)) {
    default_crd(object);
    auto causes = validate_crd(object);
    if (!causes.empty())
      return invalid(c.resource.group, c.resource.kind, custom_name(object), causes);
    return std::nullopt;
  }
  if (!c.custom) return std::nullopt;
  const CustomResource& cr = *c.custom;
  const api::Resource& r = c.resource;
  if (!old && cr.terminating) {
    ApiError e = api_error(Code::kForbidden,
                           qualified_resource(r.group, r.plural) + " \"" + custom_name(object) +
                               "\" is forbidden: create not allowed while custom resource "
                               "definition is terminating");
    e.name = custom_name(object);
    e.group = r.group;
    e.kind = r.plural;
    return e;
  }
  // Only the status subresource writes the status, when it is enabled.
  if (!old && cr.status) object.erase("status");
  if (!cr.schema.is_object()) return std::nullopt;
  auto unknown = crd::prune(object, cr.schema);
  if (!unknown.empty() && c.request.param("fieldValidation").value_or("") == "Strict") {
    std::string message = strict_message(unknown);
    // Creates and updates fail while decoding the body, which upstream words so.
    if (c.info.verb != "patch") {
      message = r.kind + " in version \"" + r.version + "\" cannot be handled as a " + r.kind +
                ": " + message;
    }
    return bad_request(message);
  }
  crd::apply_defaults(object, cr.schema);
  auto causes = crd::validate(object, cr.schema);
  if (!causes.empty()) return invalid(r.group, r.kind, custom_name(object), std::move(causes));
  return std::nullopt;
}

http::Response Rest::custom_scale(const Call& c) {
  const ScalePaths& paths = *c.custom->scale;
  const std::string& verb = c.info.verb;
  if (verb != "get" && verb != "update" && verb != "patch") {
    return error_response(method_not_allowed());
  }
  std::string type(c.request.header("content-type").value_or(""));
  type = type.substr(0, type.find(';'));
  if (verb == "patch" && type != "application/json-patch+json" &&
      type != "application/merge-patch+json") {
    return error_response(api_error(
        Code::kUnsupportedMediaType,
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"));
  }
  json body;
  if (verb != "get") {
    auto decoded = decode_body(c.request, codecs());
    if (!decoded.ok()) return error_response(decoded.error());
    body = std::move(decoded.value());
  }
  for (int attempt = 0; attempt < kCustomScaleAttempts; ++attempt) {
    auto cur = read_current(c);
    if (auto* r = std::get_if<http::Response>(&cur)) return std::move(*r);
    Current& current = std::get<Current>(cur);
    json scale = custom_scale_of(current.object, paths);
    if (verb == "get") return json_response(200, scale.dump());
    json wanted;
    if (verb == "update") {
      wanted = body;
    } else if (type == "application/json-patch+json") {
      auto applied = api::apply_json_patch(scale, body);
      if (!applied.is_ok()) return error_response(from_status(applied.status()));
      wanted = std::move(applied).value();
    } else {
      wanted = api::apply_merge_patch(scale, body);
    }
    if (!wanted.is_object()) return error_response(bad_request("a Scale must be a JSON object"));
    std::string rv =
        wanted["metadata"].is_object() ? wanted["metadata"].value("resourceVersion", "") : "";
    if (!rv.empty() && rv != std::to_string(current.revision)) {
      return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
    }
    json replicas = wanted["spec"].is_object() ? wanted["spec"].value("replicas", json()) : json();
    if (!replicas.is_number_integer() || replicas.get<int64_t>() < 0) {
      return error_response(
          invalid("autoscaling", "Scale", c.info.name,
                  {{"FieldValueInvalid",
                    "Invalid value: " + replicas.dump() + ": must be greater than or equal to 0",
                    "spec.replicas"}}));
    }
    json updated = current.object;
    updated["metadata"].erase("resourceVersion");
    set_at(updated, paths.spec_replicas, replicas);
    if (updated == current.object || value_at(current.object, paths.spec_replicas) == replicas) {
      return json_response(200, scale.dump());
    }
    json& meta = updated["metadata"];
    meta["generation"] = meta.value("generation", 0) + 1;
    auto written = write_updated(c, std::move(updated), current.object, current.revision, 200);
    if (written.status == 409 && rv.empty()) continue;
    if (written.status != 200) return written;
    json stored = json::parse(written.body, nullptr, false);
    if (!stored.is_object()) return written;
    return json_response(200, custom_scale_of(stored, paths).dump());
  }
  return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
}

}  // namespace k3c::apiserver

// Field validation, defaulting and validation of written objects (see admission.h).
#include "roles/apiserver/admission.h"

#include <algorithm>

#include "api/patch.h"
#include "api/strict_json.h"
#include "api/validation.h"
#include "core/go_format.h"
#include "roles/apiserver/object_meta.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

std::string_view request_media_type(const http::Request& request) {
  std::string_view t = request.header("content-type").value_or("application/json");
  t = t.substr(0, t.find(';'));
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  return t;
}

const api::MessageType* complete_type(const api::SchemaSet& schemas, const api::Resource& r) {
  return schemas.complete(r.gvk()) ? schemas.kind(r.gvk()) : nullptr;
}

std::string strict_decoding_message(const std::vector<std::string>& problems) {
  std::string s = "strict decoding error: ";
  for (size_t i = 0; i < problems.size(); ++i) s += (i ? ", " : "") + problems[i];
  return s;
}

// Go's %q-like quoting for a warning's text (quotes and backslashes escaped).
std::string go_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\r' || c == '\n') ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

std::optional<StatusCause> dry_run_problem(const std::vector<std::string>& values) {
  if (std::all_of(values.begin(), values.end(), [](const std::string& v) { return v == "All"; }))
    return std::nullopt;
  // Go's %#v of a []string.
  std::string shown = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) shown += (i ? ", " : "") + go_quote(values[i]);
  shown += "}";
  return StatusCause{"FieldValueNotSupported",
                     "Unsupported value: " + shown + ": supported values: \"All\"", "dryRun"};
}

ApiResult<FieldValidation> write_options(const http::Request& request) {
  std::vector<StatusCause> causes;
  std::vector<std::string> dry_run;
  for (auto v : request.params("dryRun")) dry_run.emplace_back(v);
  if (auto problem = dry_run_problem(dry_run)) causes.push_back(std::move(*problem));
  FieldValidation mode = FieldValidation::kWarn;  // absent or "": Warn, as upstream since 1.27
  auto value = request.param("fieldValidation");
  if (value && *value == "Strict") {
    mode = FieldValidation::kStrict;
  } else if (value && *value == "Ignore") {
    mode = FieldValidation::kIgnore;
  } else if (value && !value->empty() && *value != "Warn") {
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: " + go_quote(std::string(*value)) +
                          ": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"",
                      "fieldValidation"});
  }
  if (causes.empty()) return mode;
  std::string options = request.method == "POST"  ? "CreateOptions"
                        : request.method == "PUT" ? "UpdateOptions"
                                                  : "PatchOptions";
  return invalid("meta.k8s.io", options, "", std::move(causes));
}

ApiResult<DecodedObject> decode_object(const http::Request& request, const BodyCodecs& codecs,
                                       const api::Resource& resource, FieldValidation mode) {
  const api::MessageType* type = complete_type(codecs.schemas, resource);
  const bool drop = mode != FieldValidation::kStrict;
  DecodedObject out;
  std::vector<std::string> problems;
  std::string_view media = request_media_type(request);
  std::optional<api::CheckedJson> checked;
  if (media == "application/json" || media == "*/*" || media.empty())
    checked = api::parse_checked(request.body, type, drop);
  if (checked && api::json_depth(checked->value) <= api::kMaxJsonDepth) {
    out.object = std::move(checked->value);
    problems = std::move(checked->problems);
  } else {
    // YAML and protobuf bodies, and every malformed body (decode_body words the error).
    auto body = decode_body(request, codecs);
    if (!body.ok()) return body.error();
    out.object = std::move(body.value());
    if (type && media != "application/vnd.kubernetes.protobuf")
      problems = api::unknown_fields(out.object, *type, drop);
  }
  // The body's apiVersion and kind pick the type it decodes as, before any field is looked at.
  if (auto e = check_type(out.object, resource, &codecs.registry)) return *e;
  // A value of the wrong JSON type cannot be decoded, whatever the directive (as upstream).
  if (const api::MessageType* any = codecs.schemas.kind(resource.gvk())) {
    if (auto wrong = api::type_mismatch(out.object, *any)) {
      return bad_request(resource.kind + " in version \"" + resource.version +
                         "\" cannot be handled as a " + resource.kind + ": " + *wrong);
    }
  }
  if (problems.empty() || mode == FieldValidation::kIgnore) return out;
  if (mode == FieldValidation::kStrict) {
    return bad_request(resource.kind + " in version \"" + resource.version +
                       "\" cannot be handled as a " + resource.kind + ": " +
                       strict_decoding_message(problems));
  }
  out.warnings = std::move(problems);
  return out;
}

ApiResult<std::vector<std::string>> check_patched(json& object, const api::SchemaSet& schemas,
                                                  const api::Resource& resource,
                                                  FieldValidation mode) {
  if (const api::MessageType* any = schemas.kind(resource.gvk())) {
    if (auto wrong = api::type_mismatch(object, *any)) return bad_request(*wrong);
  }
  const api::MessageType* type = complete_type(schemas, resource);
  if (!type) return std::vector<std::string>{};
  auto problems = api::unknown_fields(object, *type, mode != FieldValidation::kStrict);
  if (problems.empty() || mode == FieldValidation::kIgnore) return std::vector<std::string>{};
  if (mode == FieldValidation::kStrict) return bad_request(strict_decoding_message(problems));
  return problems;
}

void apply_object_defaults(json& object, const api::SchemaSet& schemas,
                           const api::Resource& resource) {
  const api::MessageType* type = schemas.kind(resource.gvk());
  if (type && object.is_object()) api::apply_defaults(object, *type);
}

std::optional<ApiError> default_and_validate(json& object, const json* old,
                                             const api::SchemaSet& schemas,
                                             const api::Resource& resource) {
  apply_object_defaults(object, schemas, resource);
  return validate_object(object, old, schemas, resource);
}

std::optional<ApiError> validate_object(const json& object, const json* old,
                                        const api::SchemaSet& schemas,
                                        const api::Resource& resource) {
  const api::MessageType* type = schemas.kind(resource.gvk());
  if (!type || !object.is_object()) return std::nullopt;
  api::FieldErrors errors = api::validate(object, old, *type);
  if (errors.empty()) return std::nullopt;
  std::vector<StatusCause> causes;
  for (const auto& e : errors) causes.push_back({e.reason(), e.body(), e.field});
  std::string name;
  if (object.contains("metadata") && object["metadata"].is_object())
    name = object["metadata"].value("name", "");
  return invalid(resource.group, resource.kind, name, std::move(causes));
}

void add_warnings(http::Response& response, const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) response.headers.emplace_back("Warning", "299 - " + go_quoted(w));
}

}  // namespace k3c::apiserver

// Upstream-shaped error Status bodies (see api_errors.h).
#include "roles/apiserver/api_errors.h"

#include <algorithm>

namespace k3c::apiserver {

ApiError api_error(Code code, std::string message) {
  ApiError e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

std::string qualified_resource(std::string_view group, std::string_view resource) {
  std::string s(resource);
  if (!group.empty()) {
    s += '.';
    s += group;
  }
  return s;
}

namespace {

// An error about one object: its name, group and resource (or kind) in the details.
ApiError about(Code code, std::string message, std::string_view group, std::string_view kind,
               std::string_view name) {
  ApiError e = api_error(code, std::move(message));
  e.name = name;
  e.group = group;
  e.kind = kind;
  return e;
}

std::string quoted(std::string_view name) { return " \"" + std::string(name) + "\""; }

}  // namespace

ApiError not_found(std::string_view group, std::string_view resource, std::string_view name) {
  return about(Code::kNotFound, qualified_resource(group, resource) + quoted(name) + " not found",
               group, resource, name);
}

ApiError already_exists(std::string_view group, std::string_view resource, std::string_view name) {
  return about(Code::kAlreadyExists,
               qualified_resource(group, resource) + quoted(name) + " already exists", group,
               resource, name);
}

ApiError conflict(std::string_view group, std::string_view resource, std::string_view name,
                  std::string_view why) {
  return about(Code::kConflict,
               "Operation cannot be fulfilled on " + qualified_resource(group, resource) +
                   quoted(name) + ": " + std::string(why),
               group, resource, name);
}

ApiError object_modified(std::string_view group, std::string_view resource, std::string_view name) {
  return conflict(group, resource, name,
                  "the object has been modified; please apply your changes to the latest "
                  "version and try again");
}

ApiError admission_forbidden(std::string_view group, std::string_view resource,
                             std::string_view name, std::string_view reason) {
  ApiError e =
      api_error(Code::kForbidden, qualified_resource(group, resource) + " \"" + std::string(name) +
                                      "\" is forbidden: " + std::string(reason));
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 std::vector<StatusCause> causes) {
  // As upstream's aggregate: each distinct message once, bracketed when there are several.
  std::string list;
  std::vector<std::string> seen;
  for (const auto& c : causes) {
    std::string one = c.field.empty() ? c.message : c.field + ": " + c.message;
    if (std::find(seen.begin(), seen.end(), one) != seen.end()) continue;
    if (!list.empty()) list += ", ";
    list += one;
    seen.push_back(std::move(one));
  }
  if (seen.size() > 1) list = "[" + list + "]";
  ApiError e =
      about(Code::kInvalid, qualified_resource(group, kind) + quoted(name) + " is invalid: " + list,
            group, kind, name);
  e.causes = std::move(causes);
  return e;
}

ApiError bad_request(std::string message) {
  return api_error(Code::kBadRequest, std::move(message));
}

ApiError method_not_allowed() {
  return api_error(Code::kMethodNotAllowed,
                   "the server does not allow this method on the requested resource");
}

ApiError resource_not_found() {
  ApiError e = api_error(Code::kNotFound, "the server could not find the requested resource");
  e.empty_details = true;
  return e;
}

ApiError unconverted_error(std::string message) {
  ApiError e = api_error(Code::kInternal, std::move(message));
  e.unknown_reason = true;
  return e;
}

ApiError from_status(const Status& status) { return api_error(status.code(), status.message()); }

nlohmann::json status_body(const ApiError& e) {
  nlohmann::json body = {
      {"kind", "Status"},    {"apiVersion", "v1"},   {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", e.message}, {"code", http_code_of(e.code)}};
  if (!e.unknown_reason) body["reason"] = std::string(reason_of(e.code));
  nlohmann::json details = nlohmann::json::object();
  if (!e.name.empty()) details["name"] = e.name;
  if (!e.group.empty()) details["group"] = e.group;
  if (!e.kind.empty()) details["kind"] = e.kind;
  if (!e.causes.empty()) {
    auto& causes = details["causes"] = nlohmann::json::array();
    for (const auto& c : e.causes) {
      nlohmann::json cause = {{"reason", c.reason}, {"message", c.message}};
      if (!c.field.empty()) cause["field"] = c.field;  // omitempty upstream
      causes.push_back(std::move(cause));
    }
  }
  if (e.retry_after_seconds > 0) details["retryAfterSeconds"] = e.retry_after_seconds;
  if (!details.empty() || e.empty_details) body["details"] = std::move(details);
  return body;
}

http::Response error_response(const ApiError& e) {
  http::Response r;
  r.status = http_code_of(e.code);
  r.body = status_body(e).dump();
  r.set_header("Content-Type", "application/json");
  if (e.retry_after_seconds > 0) r.set_header("Retry-After", std::to_string(e.retry_after_seconds));
  return r;
}

nlohmann::json success_status() {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", nlohmann::json::object()},
          {"status", "Success"}};
}

}  // namespace k3c::apiserver

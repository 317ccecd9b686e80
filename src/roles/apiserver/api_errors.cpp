// Upstream-shaped error Status bodies (see api_errors.h).
#include "roles/apiserver/api_errors.h"

namespace k3c::apiserver {

std::string qualified_resource(std::string_view group, std::string_view resource) {
  std::string s(resource);
  if (!group.empty()) {
    s += '.';
    s += group;
  }
  return s;
}

ApiError not_found(std::string_view group, std::string_view resource, std::string_view name) {
  ApiError e;
  e.code = Code::kNotFound;
  e.message = qualified_resource(group, resource) + " \"" + std::string(name) + "\" not found";
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

ApiError already_exists(std::string_view group, std::string_view resource, std::string_view name) {
  ApiError e;
  e.code = Code::kAlreadyExists;
  e.message = qualified_resource(group, resource) + " \"" + std::string(name) + "\" already exists";
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

ApiError conflict(std::string_view group, std::string_view resource, std::string_view name,
                  std::string_view why) {
  ApiError e;
  e.code = Code::kConflict;
  e.message = "Operation cannot be fulfilled on " + qualified_resource(group, resource) + " \"" +
              std::string(name) + "\": " + std::string(why);
  e.name = name;
  e.group = group;
  e.kind = resource;
  return e;
}

ApiError object_modified(std::string_view group, std::string_view resource, std::string_view name) {
  return conflict(group, resource, name,
                  "the object has been modified; please apply your changes to the latest "
                  "version and try again");
}

ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 std::vector<StatusCause> causes) {
  ApiError e;
  e.code = Code::kInvalid;
  std::string list;
  for (const auto& c : causes) {
    if (!list.empty()) list += ", ";
    list += c.field.empty() ? c.message : c.field + ": " + c.message;
  }
  if (causes.size() > 1) list = "[" + list + "]";
  e.message = qualified_resource(group, kind) + " \"" + std::string(name) + "\" is invalid: " + list;
  e.name = name;
  e.group = group;
  e.kind = kind;
  e.causes = std::move(causes);
  return e;
}

ApiError bad_request(std::string message) {
  ApiError e;
  e.code = Code::kBadRequest;
  e.message = std::move(message);
  return e;
}

ApiError method_not_allowed() {
  ApiError e;
  e.code = Code::kMethodNotAllowed;
  e.message = "the server does not allow this method on the requested resource";
  return e;
}

ApiError resource_not_found() {
  ApiError e;
  e.code = Code::kNotFound;
  e.message = "the server could not find the requested resource";
  return e;
}

ApiError from_status(const Status& status) {
  ApiError e;
  e.code = status.code();
  e.message = status.message();
  return e;
}

nlohmann::json status_body(const ApiError& e) {
  nlohmann::json body = {{"kind", "Status"},
                         {"apiVersion", "v1"},
                         {"metadata", nlohmann::json::object()},
                         {"status", "Failure"},
                         {"message", e.message},
                         {"reason", std::string(reason_of(e.code))},
                         {"code", http_code_of(e.code)}};
  nlohmann::json details = nlohmann::json::object();
  if (!e.name.empty()) details["name"] = e.name;
  if (!e.group.empty()) details["group"] = e.group;
  if (!e.kind.empty()) details["kind"] = e.kind;
  if (!e.causes.empty()) {
    auto& causes = details["causes"] = nlohmann::json::array();
    for (const auto& c : e.causes) {
      causes.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
    }
  }
  if (e.retry_after_seconds > 0) details["retryAfterSeconds"] = e.retry_after_seconds;
  if (!details.empty()) body["details"] = std::move(details);
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

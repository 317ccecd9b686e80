// Errors as the Kubernetes API answers them: a metav1.Status body whose message, reason,
// details and code match upstream's wording, so kubectl prints exactly what it prints
// against a real cluster ("Error from server (NotFound): pods "x" not found").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "http/http.h"

namespace k3c::apiserver {

struct StatusCause {
  std::string reason;   // FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
  std::string message;  // "Invalid value: -1: must be greater than or equal to 0"
  std::string field;    // "spec.replicas"
};

struct ApiError {
  Code code = Code::kInternal;
  std::string message;
  // details
  std::string name;
  std::string group;
  std::string kind;  // the resource (plural) for most errors, the Kind for Invalid
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
  // Upstream's answer to an error its REST layer passes through without making it a Status
  // (responsewriters.ErrorToAPIStatus's fallback): no reason at all.
  bool unknown_reason = false;
  // Upstream's NewGenericServerResponse sends "details": {} even when they are empty.
  bool empty_details = false;
};

// An error with a code and message and no details.
ApiError api_error(Code code, std::string message);

// "pods" or "deployments.apps".
std::string qualified_resource(std::string_view group, std::string_view resource);

ApiError not_found(std::string_view group, std::string_view resource, std::string_view name);
ApiError already_exists(std::string_view group, std::string_view resource, std::string_view name);
ApiError conflict(std::string_view group, std::string_view resource, std::string_view name,
                  std::string_view why);
ApiError object_modified(std::string_view group, std::string_view resource, std::string_view name);
// An admission plugin's refusal, as upstream's admission.NewForbidden words it:
// `<resource> "<name>" is forbidden: <reason>`.
ApiError admission_forbidden(std::string_view group, std::string_view resource,
                             std::string_view name, std::string_view reason);
// `Kind.group "name" is invalid: field: message, ...`
ApiError invalid(std::string_view group, std::string_view kind, std::string_view name,
                 std::vector<StatusCause> causes);
ApiError bad_request(std::string message);
ApiError method_not_allowed();
ApiError resource_not_found();  // "the server could not find the requested resource"
// An error upstream passes through unconverted: 500 with no reason (a storage error such as
// a resourceVersion the watch cache cannot parse, or etcd's future-revision error).
ApiError unconverted_error(std::string message);
// Any other Status (store errors, timeouts) as an ApiError with the generic shape.
ApiError from_status(const Status& status);

nlohmann::json status_body(const ApiError& e);
http::Response error_response(const ApiError& e);
// The Success Status some deletes answer with.
nlohmann::json success_status();

}  // namespace k3c::apiserver

// pods/log: checks the pod, the container and the PodLogOptions as upstream's pod REST does,
// then hands the request to the kubelet of the pod's node (/containerLogs/<ns>/<pod>/<c>)
// and streams its answer back. The kubelet of this process is reached in-process (see
// http/local_endpoints.h), one on another machine over HTTPS (remote_kubelet.h).
#include <algorithm>
#include <charconv>

#include "api/json_fields.h"
#include "core/go_format.h"
#include "core/ids.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

// The PodLogOptions query parameters the kubelet understands, passed on as given.
constexpr const char* kLogParams[] = {"follow",       "previous",  "tailLines", "timestamps",
                                      "sinceSeconds", "sinceTime", "limitBytes"};

std::vector<std::string> container_names(const json& spec) {
  std::vector<std::string> names;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const json& containers = api::member(spec, list);
    if (!containers.is_array()) continue;
    for (const json& c : containers)
      if (c.is_object()) names.push_back(c.value("name", ""));
  }
  return names;
}

// The container the request names, or the only one (upstream validateContainer).
ApiResult<std::string> container_for(const Call& c, const json& pod) {
  const json& spec = api::member(pod, "spec");
  std::vector<std::string> all = container_names(spec);
  std::string name(c.request.param("container").value_or(""));
  if (!name.empty()) {
    if (std::find(all.begin(), all.end(), name) == all.end())
      return bad_request("container " + name + " is not valid for pod " + c.info.name);
    return name;
  }
  const json& containers = api::member(spec, "containers");
  const size_t count = containers.is_array() ? containers.size() : 0;
  if (count == 1) return containers[0].value("name", "");
  if (count == 0) return bad_request("a container name must be specified for pod " + c.info.name);
  return bad_request("a container name must be specified for pod " + c.info.name +
                     ", choose one of: " + go_list(all));
}

// Upstream ValidatePodLogOptions, plus the integer parsing of the query.
std::optional<ApiError> check_options(const Call& c) {
  std::vector<StatusCause> causes;
  auto integer = [&](const char* param, int64_t minimum,
                     const char* rule) -> std::optional<ApiError> {
    auto text = c.request.param(param);
    if (!text) return std::nullopt;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (text->empty() || ec != std::errc() || end != text->data() + text->size())
      return bad_request("invalid " + std::string(param) + " \"" + std::string(*text) +
                         "\": not an integer");
    if (value < minimum) {
      causes.push_back(
          {"FieldValueInvalid", "Invalid value: " + std::to_string(value) + ": " + rule, param});
    }
    return std::nullopt;
  };
  if (auto e = integer("tailLines", 0, "must be greater than or equal to 0")) return e;
  if (auto e = integer("limitBytes", 1, "must be greater than 0")) return e;
  if (auto e = integer("sinceSeconds", 1, "must be greater than 0")) return e;
  if (auto since = c.request.param("sinceTime"); since && !parse_rfc3339(*since))
    return bad_request("invalid sinceTime \"" + std::string(*since) + "\": not an RFC 3339 time");
  if (c.request.param("sinceSeconds") && c.request.param("sinceTime")) {
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
                      ""});
  }
  if (causes.empty()) return std::nullopt;
  return invalid("", "PodLogOptions", c.info.name, std::move(causes));
}

// A kubelet's error answer (plain text) as the Status upstream's response checker makes.
// A Status is the API server's own answer (the kubelet could not be reached): its message.
http::Response from_kubelet_error(const http::Response& answer) {
  std::string message = answer.body;
  if (json status = json::parse(answer.body, nullptr, false);
      status.is_object() && status.value("kind", "") == "Status")
    message = status.value("message", "");
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
  switch (answer.status) {
    case 400:
      return error_response(bad_request(message));
    case 404:
      return error_response(api_error(Code::kNotFound, message));
    case 403:
      return error_response(api_error(Code::kForbidden, message));
    default:
      return error_response(api_error(Code::kInternal, message));
  }
}

}  // namespace

http::Response Actions::pod_log(const Call& c) {
  auto current = read_pod(c);
  if (!current.ok()) return error_response(current.error());
  const json& pod = current.value();
  auto container = container_for(c, pod);
  if (!container.ok()) return error_response(container.error());
  if (auto bad = check_options(c)) return error_response(*bad);

  // Not scheduled yet: upstream answers an empty log.
  const std::string node = api::text(api::member(pod, "spec"), "nodeName");
  if (node.empty()) {
    http::Response empty;
    empty.set_header("Content-Type", "text/plain");
    return empty;
  }
  auto kubelet = kubelet_of(node);
  if (!kubelet.ok()) return error_response(kubelet.error());
  http::Request forward;
  forward.method = "GET";
  forward.path =
      "/containerLogs/" + c.info.namespace_ + "/" + c.info.name + "/" + container.value();
  for (const char* param : kLogParams)
    if (auto value = c.request.param(param)) forward.query.emplace_back(param, std::string(*value));
  forward.target = forward.path;  // informational: handlers read path and query
  forward.peer = c.request.peer;
  http::Response answer = kubelet.value()(forward);
  if (answer.status < 200 || answer.status >= 300) return from_kubelet_error(answer);
  answer.set_header("Content-Type", "text/plain");
  return answer;
}

}  // namespace k3c::apiserver

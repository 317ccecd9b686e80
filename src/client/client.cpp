#include "client/client.h"

#include <array>

namespace k3c::client {

using nlohmann::json;

namespace resources {
const ResourceId kNamespaces{"", "v1", "namespaces", false};
const ResourceId kPods{"", "v1", "pods"};
const ResourceId kServices{"", "v1", "services"};
const ResourceId kEndpoints{"", "v1", "endpoints"};
const ResourceId kNodes{"", "v1", "nodes", false};
const ResourceId kConfigMaps{"", "v1", "configmaps"};
const ResourceId kSecrets{"", "v1", "secrets"};
const ResourceId kServiceAccounts{"", "v1", "serviceaccounts"};
const ResourceId kEvents{"", "v1", "events"};
const ResourceId kReplicationControllers{"", "v1", "replicationcontrollers"};
const ResourceId kPersistentVolumeClaims{"", "v1", "persistentvolumeclaims"};
const ResourceId kPersistentVolumes{"", "v1", "persistentvolumes", false};
const ResourceId kDeployments{"apps", "v1", "deployments"};
const ResourceId kReplicaSets{"apps", "v1", "replicasets"};
const ResourceId kStatefulSets{"apps", "v1", "statefulsets"};
const ResourceId kDaemonSets{"apps", "v1", "daemonsets"};
const ResourceId kControllerRevisions{"apps", "v1", "controllerrevisions"};
const ResourceId kJobs{"batch", "v1", "jobs"};
const ResourceId kCronJobs{"batch", "v1", "cronjobs"};
const ResourceId kLeases{"coordination.k8s.io", "v1", "leases"};
const ResourceId kEndpointSlices{"discovery.k8s.io", "v1", "endpointslices"};
const ResourceId kPodDisruptionBudgets{"policy", "v1", "poddisruptionbudgets"};
const ResourceId kResourceQuotas{"", "v1", "resourcequotas"};
const ResourceId kHorizontalPodAutoscalers{"autoscaling", "v2", "horizontalpodautoscalers"};
const ResourceId kStorageClasses{"storage.k8s.io", "v1", "storageclasses", false};
}  // namespace resources

std::string ResourceId::path(std::string_view ns, std::string_view name,
                             std::string_view subresource) const {
  std::string p = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) p += "/namespaces/" + query_escape(ns);
  p += "/" + plural;
  if (!name.empty()) p += "/" + query_escape(name);
  if (!subresource.empty()) p += "/" + std::string(subresource);
  return p;
}

std::string query_escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Status status_of(const Reply& reply) {
  static constexpr std::array<Code, 15> kCodes = {Code::kNotFound,
                                                  Code::kAlreadyExists,
                                                  Code::kConflict,
                                                  Code::kInvalid,
                                                  Code::kBadRequest,
                                                  Code::kUnauthorized,
                                                  Code::kForbidden,
                                                  Code::kMethodNotAllowed,
                                                  Code::kNotAcceptable,
                                                  Code::kRequestEntityTooLarge,
                                                  Code::kUnsupportedMediaType,
                                                  Code::kTooManyRequests,
                                                  Code::kGone,
                                                  Code::kTimeout,
                                                  Code::kServiceUnavailable};
  json body = json::parse(reply.body, nullptr, false);
  std::string reason, message = reply.body;
  if (body.is_object()) {
    reason = body.value("reason", "");
    message = body.value("message", reply.body);
  }
  for (Code code : kCodes) {
    if (!reason.empty() && reason_of(code) == reason) return error(code, message);
  }
  for (Code code : kCodes) {
    if (http_code_of(code) == reply.status) return error(code, message);
  }
  if (reply.status == 501) return error(Code::kNotImplemented, message);
  return error(Code::kInternal, "HTTP " + std::to_string(reply.status) + ": " + message);
}

namespace {

// Whether the request was made and succeeded (a 2xx), its body left unread.
Status outcome_of(const Result<Reply>& reply) {
  if (!reply.is_ok()) return reply.status();
  if (reply->status < 200 || reply->status > 299) return status_of(*reply);
  return Status::ok();
}

Result<json> object_of(Result<Reply> reply) {
  RETURN_IF_ERROR(outcome_of(reply));
  json body = json::parse(reply->body, nullptr, false);
  if (body.is_discarded()) return error(Code::kInternal, "the server answered invalid JSON");
  return body;
}

// A request body. A string that is not UTF-8 (an error message quoting raw bytes, say) is
// written with U+FFFD in place of its bad bytes rather than throwing on a caller's thread.
std::string body_of(const json& object) {
  return object.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string meta_string(const json& object, const char* field) {
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return "";
  return m->value(field, "");
}

}  // namespace

Result<json> get(Client& c, const ResourceId& r, std::string_view ns, std::string_view name) {
  return object_of(c.request("GET", r.path(ns, name)));
}

Result<json> list(Client& c, const ResourceId& r, std::string_view ns, const ListOptions& options) {
  std::string target = r.path(ns);
  char sep = '?';
  auto add = [&](std::string_view key, const std::string& value) {
    if (value.empty()) return;
    target += sep;
    target += key;
    target += '=';
    target += query_escape(value);
    sep = '&';
  };
  add("labelSelector", options.label_selector);
  add("fieldSelector", options.field_selector);
  add("limit", options.limit > 0 ? std::to_string(options.limit) : "");
  add("continue", options.continue_token);
  add("resourceVersion", options.resource_version);
  return object_of(c.request("GET", target));
}

Result<json> create(Client& c, const ResourceId& r, std::string_view ns, const json& object) {
  return object_of(c.request("POST", r.path(ns), body_of(object)));
}

Result<json> update(Client& c, const ResourceId& r, const json& object,
                    std::string_view subresource) {
  return object_of(c.request(
      "PUT", r.path(meta_string(object, "namespace"), meta_string(object, "name"), subresource),
      body_of(object)));
}

Result<json> patch(Client& c, const ResourceId& r, std::string_view ns, std::string_view name,
                   std::string_view patch_type, const json& patch_body,
                   std::string_view subresource) {
  return object_of(
      c.request("PATCH", r.path(ns, name, subresource), body_of(patch_body), patch_type));
}

Status patch_unanswered(Client& c, const ResourceId& r, std::string_view ns, std::string_view name,
                        std::string_view patch_type, const json& patch_body,
                        std::string_view subresource) {
  return outcome_of(
      c.request("PATCH", r.path(ns, name, subresource), body_of(patch_body), patch_type));
}

Status remove(Client& c, const ResourceId& r, std::string_view ns, std::string_view name,
              const DeleteOptions& options) {
  json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  if (!options.precondition_uid.empty())
    body["preconditions"] = {{"uid", options.precondition_uid}};
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  return outcome_of(c.request("DELETE", r.path(ns, name), body_of(body)));
}

}  // namespace k3c::client

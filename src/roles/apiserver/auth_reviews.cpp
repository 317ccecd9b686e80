// The review kinds: SelfSubjectReview (who am I), TokenReview (who does this token stand
// for), SelfSubjectAccessReview / SubjectAccessReview / LocalSubjectAccessReview (may this
// user do that) and SelfSubjectRulesReview (what may I do). Each answers 201 with the
// request and its status filled in; nothing is stored. Decisions come from authorizer.h, the
// same rules the router enforces, so a "no" here is a 403 there.
#include "roles/apiserver/actions.h"
#include "roles/apiserver/authorizer.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

std::vector<std::string> review_strings(const json& o, const char* key) {
  std::vector<std::string> out;
  auto it = o.find(key);
  if (it == o.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

http::Response answer(json review, json status) {
  review["metadata"]["creationTimestamp"] = nullptr;
  review["status"] = std::move(status);
  return json_response(201, review.dump());
}

}  // namespace

http::Response Actions::self_subject_review(const Call& c) {
  auto body = body_of(c, "authentication.k8s.io/v1", "SelfSubjectReview");
  if (!body.ok()) return error_response(body.error());
  return answer(std::move(body.value()), {{"userInfo", user_info(*c.request.peer)}});
}

http::Response Actions::token_review(const Call& c) {
  auto body = body_of(c, "authentication.k8s.io/v1", "TokenReview");
  if (!body.ok()) return error_response(body.error());
  json& review = body.value();
  const json& spec = review.value("spec", json::object());
  std::string token = spec.is_object() ? spec.value("token", "") : "";
  if (token.empty()) {
    return error_response(bad_request("token is required for TokenReview in authentication"));
  }
  auto reviewed = authn_.review(token, review_strings(spec, "audiences"));
  if (!reviewed.is_ok()) {
    return answer(std::move(review),
                  {{"user", json::object()}, {"error", reviewed.status().message()}});
  }
  return answer(std::move(review), {{"authenticated", true},
                                    {"user", user_info(reviewed->user)},
                                    {"audiences", reviewed->audiences}});
}

http::Response Actions::access_review(const Call& c) {
  const std::string kind = c.resource.kind;
  auto body = body_of(c, "authorization.k8s.io/v1", kind);
  if (!body.ok()) return error_response(body.error());
  json& review = body.value();
  json spec = review.value("spec", json::object());
  if (!spec.is_object()) spec = json::object();
  const bool self = kind == "SelfSubjectAccessReview";
  const bool local = kind == "LocalSubjectAccessReview";
  const json resource = spec.value("resourceAttributes", json());
  const json non_resource = spec.value("nonResourceAttributes", json());
  std::vector<StatusCause> causes;
  if (resource.is_object() && non_resource.is_object()) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + non_resource.dump() +
                          ": cannot be specified in combination with resourceAttributes",
                      "spec.nonResourceAttributes"});
  }
  if (!resource.is_object() && !non_resource.is_object()) {
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: \"null\": exactly one of nonResourceAttributes or "
                      "resourceAttributes must be specified",
                      "spec.resourceAttributes"});
  }
  http::PeerIdentity user;
  if (self) {
    user = *c.request.peer;
  } else {
    user.user = spec.value("user", "");
    user.groups = review_strings(spec, "groups");
    user.uid = spec.value("uid", "");
    if (user.user.empty() && user.groups.empty()) {
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: \"\": at least one of user or group must be specified",
                        "spec.user"});
    }
  }
  if (local) {
    review["metadata"]["namespace"] = c.info.namespace_;
    if (non_resource.is_object()) {
      causes.push_back(
          {"FieldValueInvalid",
           "Invalid value: " + non_resource.dump() + ": disallowed on this kind of request",
           "spec.nonResourceAttributes"});
    }
    if (resource.is_object() && resource.value("namespace", "") != c.info.namespace_) {
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: \"" + resource.value("namespace", "") +
                            "\": must match metadata.namespace",
                        "spec.resourceAttributes.namespace"});
    }
  }
  if (!causes.empty()) {
    return error_response(invalid("authorization.k8s.io", kind, "", std::move(causes)));
  }
  Attributes a;
  if (resource.is_object()) {
    a.resource_request = true;
    a.verb = resource.value("verb", "");
    a.namespace_ = resource.value("namespace", "");
    a.group = resource.value("group", "");
    a.version = resource.value("version", "");
    a.resource = resource.value("resource", "");
    a.subresource = resource.value("subresource", "");
    a.name = resource.value("name", "");
  } else {
    a.verb = non_resource.value("verb", "");
    a.path = non_resource.value("path", "");
  }
  Decision d = authorize(user, a);
  json status = {{"allowed", d.allowed}};
  if (!d.reason.empty()) status["reason"] = d.reason;
  return answer(std::move(review), std::move(status));
}

http::Response Actions::rules_review(const Call& c) {
  auto body = body_of(c, "authorization.k8s.io/v1", "SelfSubjectRulesReview");
  if (!body.ok()) return error_response(body.error());
  const http::PeerIdentity& user = *c.request.peer;
  // What authorizer.h grants every authenticated user, then everything for system:masters.
  json resource_rules =
      json::array({{{"verbs", {"create"}},
                    {"apiGroups", {"authorization.k8s.io"}},
                    {"resources", {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}}},
                   {{"verbs", {"create"}},
                    {"apiGroups", {"authentication.k8s.io"}},
                    {"resources", {"selfsubjectreviews"}}}});
  json non_resource_rules =
      json::array({{{"verbs", {"get"}},
                    {"nonResourceURLs",
                     {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                      "/openapi/*", "/readyz", "/version", "/version/"}}}});
  json status;
  Attributes anything;
  anything.resource_request = true;
  anything.verb = "*";
  if (authorize(user, anything).allowed) {
    json everything = {{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}};
    json every_path = {{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}};
    resource_rules.insert(resource_rules.begin(), everything);
    non_resource_rules.insert(non_resource_rules.begin(), every_path);
    status = {{"incomplete", false}};
  } else {
    status = {{"incomplete", true}, {"evaluationError", std::string(kRbacNotImplemented)}};
  }
  status["resourceRules"] = std::move(resource_rules);
  status["nonResourceRules"] = std::move(non_resource_rules);
  return answer(std::move(body.value()), std::move(status));
}

}  // namespace k3c::apiserver

// serviceaccounts/token (authentication.k8s.io/v1 TokenRequest): a signed, expiring token
// for a service account, optionally bound to a pod or secret (it stops authenticating when
// that object is gone). Defaults and limits as upstream: one hour, at least ten minutes, at
// most 2^32 seconds; audiences default to the API server's.
#include "core/ids.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int64_t kDefaultSeconds = 3600;
constexpr int64_t kMinSeconds = 600;
constexpr int64_t kMaxSeconds = int64_t{1} << 32;

}  // namespace

http::Response Actions::token_request(const Call& c) {
  auto body = body_of(c, "authentication.k8s.io/v1", "TokenRequest");
  if (!body.ok()) return error_response(body.error());
  json& req = body.value();
  json& spec = req["spec"];
  if (!spec.is_object()) spec = json::object();
  const std::string req_name = req["metadata"].value("name", "");

  json seconds = spec.value("expirationSeconds", json(kDefaultSeconds));
  if (!seconds.is_number_integer()) {
    return error_response(bad_request("spec.expirationSeconds must be an integer"));
  }
  int64_t s = seconds.get<int64_t>();
  if (s < kMinSeconds || s > kMaxSeconds) {
    std::string why = s < kMinSeconds ? "may not specify a duration less than 10 minutes"
                                      : "may not specify a duration larger than 2^32 seconds";
    return error_response(
        invalid("authentication.k8s.io", "TokenRequest", req_name,
                {{"FieldValueInvalid", "Invalid value: " + std::to_string(s) + ": " + why,
                  "spec.expirationSeconds"}}));
  }
  spec["expirationSeconds"] = s;

  auto sa = actions::read(cache_, c.resource.storage_key(c.info.namespace_, c.info.name));
  if (!sa.ok()) {
    if (sa.error().code == Code::kNotFound) {
      return error_response(not_found("", "serviceaccounts", c.info.name));
    }
    return error_response(sa.error());
  }
  TokenClaims claims;
  claims.namespace_ = c.info.namespace_;
  claims.service_account = c.info.name;
  claims.service_account_uid = sa.value().object["metadata"].value("uid", "");

  const json& ref = spec.value("boundObjectRef", json());
  if (ref.is_object()) {
    std::string kind = ref.value("kind", ""), api_version = ref.value("apiVersion", "");
    std::string name = ref.value("name", ""), uid = ref.value("uid", "");
    if (api_version != "v1" || (kind != "Pod" && kind != "Secret")) {
      return error_response(
          bad_request("cannot bind token to object of type " + api_version + ", Kind=" + kind));
    }
    std::string plural = kind == "Pod" ? "pods" : "secrets";
    auto bound =
        actions::read(cache_, "/registry/" + plural + "/" + c.info.namespace_ + "/" + name);
    if (!bound.ok()) {
      if (bound.error().code == Code::kNotFound) return error_response(not_found("", plural, name));
      return error_response(bound.error());
    }
    const json& object = bound.value().object;
    std::string actual_uid = object["metadata"].value("uid", "");
    if (kind == "Pod" &&
        object.value("spec", json::object()).value("serviceAccountName", "default") !=
            c.info.name) {
      return error_response(bad_request("cannot bind token for serviceaccount \"" + c.info.name +
                                        "\" to pod running with different serviceaccount name."));
    }
    if (!uid.empty() && uid != actual_uid) {
      return error_response(
          conflict("", kind, name,
                   "the UID in the bound object reference (" + uid +
                       ") does not match the UID in record. The object might have been deleted and "
                       "then recreated"));
    }
    (kind == "Pod" ? claims.pod_name : claims.secret_name) = name;
    (kind == "Pod" ? claims.pod_uid : claims.secret_uid) = actual_uid;
  }

  std::vector<std::string> audiences;
  if (spec.contains("audiences") && spec["audiences"].is_array()) {
    for (const auto& a : spec["audiences"]) {
      if (!a.is_string()) return error_response(bad_request("spec.audiences must be strings"));
      audiences.push_back(a.get<std::string>());
    }
  }
  if (audiences.empty()) audiences = authn_.tokens().api_audiences();
  spec["audiences"] = audiences;
  claims.audiences = audiences;
  claims.expires = clock_.wall_now() + std::chrono::seconds(s);
  auto token = authn_.tokens().issue(claims);
  if (!token.is_ok()) return error_response(from_status(token.status()));
  req["metadata"]["creationTimestamp"] = nullptr;
  req["status"] = {{"token", actions::dry_run(c.request) ? "" : *token},
                   {"expirationTimestamp", rfc3339(claims.expires)}};
  return json_response(201, req.dump());
}

}  // namespace k3c::apiserver

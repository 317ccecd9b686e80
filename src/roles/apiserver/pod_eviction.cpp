// pods/eviction (policy/v1 Eviction): deletes a pod unless that would take a
// PodDisruptionBudget selecting it below what it allows. As upstream: terminal, pending and
// already-deleting pods are deleted without looking at budgets; more than one budget is a
// 500 Status; a budget its controller has not observed yet, or one with no disruptions
// left, is a 429 naming it; otherwise the budget's disruptionsAllowed is decremented and the
// pod recorded in status.disruptedPods before the pod is deleted with the Eviction's
// DeleteOptions.
#include "api/object_selectors.h"
#include "core/ids.h"
#include "core/selector.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kEvictionAttempts = 8;
constexpr size_t kMaxDisruptedPods = 2000;  // upstream's MaxDisruptedPodSize

bool can_ignore_budgets(const json& pod) {
  std::string phase = pod.value("status", json::object()).value("phase", "");
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" || phase.empty() ||
         pod["metadata"].contains("deletionTimestamp");
}

bool pod_ready(const json& pod) {
  const json& conditions = pod.value("status", json::object()).value("conditions", json::array());
  if (!conditions.is_array()) return false;
  for (const auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

ApiError too_many_requests(const std::string& cause, int retry_after) {
  ApiError e = api_error(Code::kTooManyRequests,
                         "Cannot evict pod as it would violate the pod's disruption budget.");
  e.causes.push_back({"DisruptionBudget", cause, ""});
  e.retry_after_seconds = retry_after;
  return e;
}

}  // namespace

http::Response Actions::evict(const Call& c) {
  auto body = body_of(c, "policy/v1", "Eviction");
  if (!body.ok()) return error_response(body.error());
  json& eviction = body.value();
  std::string name = eviction["metadata"].value("name", "");
  if (name != c.info.name) {
    return error_response(bad_request("name in URL does not match name in Eviction object"));
  }
  json options = eviction.value("deleteOptions", json::object());
  if (!options.is_object()) options = json::object();
  if (actions::dry_run(c.request)) options["dryRun"] = json::array({"All"});
  const bool dry = options.contains("dryRun") && options["dryRun"] == json::array({"All"});
  const api::Resource* pods = registry_->find("", "v1", "pods");
  const api::Resource* budgets = registry_->find("policy", "v1", "poddisruptionbudgets");
  auto remove_pod = [&](json opts) {
    RequestInfo info = c.info;
    info.subresource.clear();
    info.verb = "delete";
    http::Request del = actions::synthetic(c.request, "DELETE", opts.dump());
    if (dry) del.query.emplace_back("dryRun", "All");
    http::Response r = rest_.remove({info, *pods, del});
    return r.status == 200 ? actions::created_success() : r;
  };

  auto current = actions::read(cache_, pods->storage_key(c.info.namespace_, name));
  if (!current.ok()) {
    if (current.error().code == Code::kNotFound) return error_response(not_found("", "pods", name));
    return error_response(current.error());
  }
  const json& pod = current.value().object;
  if (can_ignore_budgets(pod) || budgets == nullptr) return remove_pod(options);

  // The budgets in the pod's namespace whose selector matches it.
  Filter in_namespace;
  in_namespace.prefix = budgets->storage_prefix + "/" + c.info.namespace_ + "/";
  auto listed = cache_.list(in_namespace, 0, "", 0);
  if (!listed.is_ok()) return error_response(from_status(listed.status()));
  Labels labels = api::labels_of(pod);
  std::vector<std::string> matching;
  for (const auto& item : listed->items) {
    json pdb = json::parse(item->json.text(), nullptr, false);
    if (!pdb.is_object()) continue;
    auto selector =
        api::label_selector_of(pdb.value("spec", json::object()).value("selector", json()));
    if (selector && selector->matches(labels)) matching.push_back(item->name);
  }
  if (matching.size() > 1) {
    return error_response(api_error(
        Code::kInternal,
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
        "support."));
  }
  if (matching.empty()) return remove_pod(options);

  const std::string pdb_key = budgets->storage_key(c.info.namespace_, matching[0]);
  for (int attempt = 0; attempt < kEvictionAttempts; ++attempt) {
    auto read = actions::read(cache_, pdb_key);
    if (!read.ok()) return error_response(read.error());
    json& pdb = read.value().object;
    json& status = pdb["status"];
    if (!status.is_object()) status = json::object();
    int64_t desired = status.value("desiredHealthy", int64_t{0});
    int64_t healthy = status.value("currentHealthy", int64_t{0});
    // An unready pod does not count towards healthy: no budget is spent on it, but the
    // delete is pinned to the pod as it was seen.
    if (!pod_ready(pod) && healthy >= desired && desired > 0) {
      options["preconditions"]["resourceVersion"] = std::to_string(current.value().revision);
      return remove_pod(options);
    }
    if (status.value("observedGeneration", int64_t{0}) <
        pdb["metadata"].value("generation", int64_t{0})) {
      return error_response(too_many_requests(
          "The disruption budget " + matching[0] + " is still being processed by the server.", 10));
    }
    int64_t allowed = status.value("disruptionsAllowed", int64_t{0});
    if (allowed < 0) {
      ApiError e =
          api_error(Code::kForbidden, "poddisruptionbudget.policy \"" + matching[0] +
                                          "\" is forbidden: pdb disruptions allowed is negative");
      return error_response(e);
    }
    json& disrupted = status["disruptedPods"];
    if (!disrupted.is_object()) disrupted = json::object();
    if (disrupted.size() > kMaxDisruptedPods) {
      return error_response(api_error(
          Code::kForbidden, "poddisruptionbudget.policy \"" + matching[0] +
                                "\" is forbidden: DisruptedPods map too big - too many evictions "
                                "not confirmed by PDB controller"));
    }
    if (allowed == 0) {
      return error_response(too_many_requests(
          "The disruption budget " + matching[0] + " needs " + std::to_string(desired) +
              " healthy pods and has " + std::to_string(healthy) + " currently",
          0));
    }
    if (dry) return remove_pod(options);
    status["disruptionsAllowed"] = allowed - 1;
    disrupted[name] = rfc3339(clock_.wall_now());
    pdb["metadata"]["resourceVersion"] = std::to_string(read.value().revision);
    RequestInfo info;
    info.namespace_ = c.info.namespace_;
    info.resource = "poddisruptionbudgets";
    info.name = matching[0];
    info.subresource = "status";
    info.verb = "update";
    info.group = "policy";
    info.version = "v1";
    http::Request put = actions::synthetic(c.request, "PUT", pdb.dump());
    http::Response r = rest_.update({info, *budgets, put});
    if (r.status == 409) continue;
    if (r.status != 200) return r;
    return remove_pod(options);
  }
  return error_response(api_error(Code::kTimeout, "couldn't update PodDisruptionBudget \"" +
                                                      matching[0] + "\" due to conflicts"));
}

}  // namespace k3c::apiserver

#include "roles/controllers/disruption/budget_math.h"

#include <map>

#include "api/json_fields.h"
#include "core/ids.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/deployment/rollout_math.h"

namespace k3c::controllers {

using nlohmann::json;

namespace {

// The controllers' replicas summed, each controller once.
Result<int64_t> expected_scale(const std::vector<const json*>& pods, const ScaleFinder& scale_of) {
  std::map<std::string, int64_t> scales;  // controller uid -> replicas
  for (const json* pod : pods) {
    const json* ref = controller_ref(*pod);
    if (!ref) {
      return error(Code::kInvalid, "found no controller ref for pod \"" + name_of(*pod) + "\"");
    }
    if (scales.count(api::text(*ref, "uid"))) continue;
    auto scale = scale_of(*ref, namespace_of(*pod));
    if (!scale) {
      return error(Code::kInvalid, "found no controllers for pod \"" + name_of(*pod) + "\"");
    }
    scales[scale->uid] = scale->replicas;
  }
  int64_t total = 0;
  for (const auto& [uid, replicas] : scales) total += replicas;
  return total;
}

void set_allowed_condition(json& status, bool allowed, const std::string& reason,
                           const std::string& message, const std::string& now) {
  set_condition(status, "DisruptionAllowed", allowed ? "True" : "False", reason, message, now);
  for (json& c : status["conditions"]) {
    if (c.is_object() && c.value("type", "") == "DisruptionAllowed") {
      c["observedGeneration"] = status.value("observedGeneration", int64_t{0});
    }
  }
}

}  // namespace

Result<BudgetCount> count_budget(const json& pdb, const std::vector<const json*>& pods,
                                 const ScaleFinder& scale_of) {
  const json& spec = api::member(pdb, "spec");
  const json& max_unavailable = api::member(spec, "maxUnavailable");
  const json& min_available = api::member(spec, "minAvailable");
  BudgetCount c;
  if (!max_unavailable.is_null()) {
    ASSIGN_OR_RETURN(c.expected, expected_scale(pods, scale_of));
    c.desired_healthy =
        std::max<int64_t>(0, c.expected - scaled_value(max_unavailable, c.expected, true));
  } else if (min_available.is_number_integer()) {
    c.expected = static_cast<int64_t>(pods.size());
    c.desired_healthy = min_available.get<int64_t>();
  } else if (min_available.is_string()) {
    ASSIGN_OR_RETURN(c.expected, expected_scale(pods, scale_of));
    c.desired_healthy = scaled_value(min_available, c.expected, true);
  }
  return c;
}

BudgetHealth count_health(const json& pdb, const std::vector<const json*>& pods,
                          std::chrono::system_clock::time_point now) {
  BudgetHealth h;
  const json& disrupted = api::member(api::member(pdb, "status"), "disruptedPods");
  for (const json* pod : pods) {
    if (being_deleted(*pod)) continue;
    const json& when = api::member(disrupted, name_of(*pod).c_str());
    if (when.is_string()) {
      if (auto at = parse_rfc3339(when.get<std::string>())) {
        auto deadline = *at + kDeletionTimeout;
        if (deadline > now) {
          h.disrupted_pods[name_of(*pod)] = when;
          if (!h.recheck || deadline < *h.recheck) h.recheck = deadline;
          continue;  // about to be deleted: not healthy
        }
        h.not_deleted.push_back(name_of(*pod));
      }
    }
    if (pod_ready(*pod)) ++h.current_healthy;
  }
  return h;
}

json budget_status(const json& pdb, const BudgetCount& count, const BudgetHealth& health,
                   const std::string& now) {
  // Without expected pods a budget allows nothing: its first pods may appear before this
  // controller has counted them.
  int64_t allowed =
      count.expected > 0 ? std::max<int64_t>(0, health.current_healthy - count.desired_healthy) : 0;
  const json& old = api::member(pdb, "status");
  json status = old.is_object() ? old : json::object();
  status["currentHealthy"] = health.current_healthy;
  status["desiredHealthy"] = count.desired_healthy;
  status["expectedPods"] = count.expected;
  status["disruptionsAllowed"] = allowed;
  const json& generation = api::member(api::member(pdb, "metadata"), "generation");
  status["observedGeneration"] =
      generation.is_number_integer() ? generation.get<int64_t>() : int64_t{0};
  if (health.disrupted_pods.empty()) {
    status.erase("disruptedPods");
  } else {
    status["disruptedPods"] = health.disrupted_pods;
  }
  set_allowed_condition(status, allowed > 0, allowed > 0 ? "SufficientPods" : "InsufficientPods",
                        "", now);
  return status;
}

json failed_budget_status(const json& pdb, const std::string& message, const std::string& now) {
  const json& old = api::member(pdb, "status");
  json status = old.is_object() ? old : json::object();
  status["disruptionsAllowed"] = 0;
  set_allowed_condition(status, false, "SyncFailed", message, now);
  return status;
}

}  // namespace k3c::controllers

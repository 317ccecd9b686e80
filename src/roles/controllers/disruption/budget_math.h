// The arithmetic of a PodDisruptionBudget (upstream's disruption controller without its I/O):
// how many pods it expects, how many must stay healthy, how many are, and the status that
// says how many disruptions are allowed. Pure functions, unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace k3c::controllers {

// The scale of the controller of a pod: its uid (each controller is counted once) and
// spec.replicas.
struct ControllerScale {
  std::string uid;
  int64_t replicas = 0;
};
// Finds the scale of the controller `controller_ref` names (a pod's controller reference, in
// the pod's namespace `ns`): nullopt when no known controller has it.
using ScaleFinder = std::function<std::optional<ControllerScale>(
    const nlohmann::json& controller_ref, const std::string& ns)>;

struct BudgetCount {
  int64_t expected = 0;         // status.expectedPods
  int64_t desired_healthy = 0;  // status.desiredHealthy
};
// From spec.minAvailable / spec.maxUnavailable over the selected pods: a whole-number
// minAvailable expects the pods there are; a percentage or maxUnavailable expects what the
// pods' controllers ask for (percentages round up). An error (a pod without a controller, a
// controller not found) carries upstream's message.
Result<BudgetCount> count_budget(const nlohmann::json& pdb,
                                 const std::vector<const nlohmann::json*>& pods,
                                 const ScaleFinder& scale_of);

// How long an eviction recorded in status.disruptedPods waits for the pod's deletion.
inline constexpr std::chrono::minutes kDeletionTimeout{2};

struct BudgetHealth {
  int64_t current_healthy = 0;
  nlohmann::json disrupted_pods = nlohmann::json::object();  // the entries still pending
  std::vector<std::string> not_deleted;  // pods whose eviction timed out without a deletion
  std::optional<std::chrono::system_clock::time_point> recheck;  // the next entry to time out
};
// Ready pods not being deleted and not recently evicted.
BudgetHealth count_health(const nlohmann::json& pdb, const std::vector<const nlohmann::json*>& pods,
                          std::chrono::system_clock::time_point now);

// The new status: counts, disruptionsAllowed (0 unless pods are expected and more are healthy
// than desired), observedGeneration, and the DisruptionAllowed condition (SufficientPods /
// InsufficientPods).
nlohmann::json budget_status(const nlohmann::json& pdb, const BudgetCount& count,
                             const BudgetHealth& health, const std::string& now);
// The status when the budget cannot be computed: no disruptions, DisruptionAllowed False with
// reason SyncFailed and the error.
nlohmann::json failed_budget_status(const nlohmann::json& pdb, const std::string& message,
                                    const std::string& now);

}  // namespace k3c::controllers

// Internal to the job controller: the state of one reconcile and the small readers of job and
// pod fields its three files share.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "roles/controllers/job/job_controller.h"

namespace k3c::controllers {

inline constexpr const char* kJobTrackingFinalizer = "batch.kubernetes.io/job-tracking";
inline constexpr const char* kCompletionIndex = "batch.kubernetes.io/job-completion-index";

struct JobController::Sync {
  std::string key;
  json job;                               // the working copy; its status is what gets written
  std::vector<client::ObjectPtr> pods;    // every pod the job controls
  std::vector<client::ObjectPtr> active;  // not finished, not being deleted
  std::set<std::string> uncounted_succeeded, uncounted_failed;  // uids, as read at the start
  std::set<std::string> expected_rm;  // finalizer removals not yet in the pod cache
  int64_t succeeded = 0, failed = 0, ready = 0, terminating = 0;
  int64_t active_count = 0;
  json finished;  // null, or the condition that ends the job (not yet written)
  bool indexed = false;
  Intervals prev_succeeded, succeeded_indexes;
  BackoffRecord backoff;  // committed once the status is written
  WallTime now;

  json& status() { return job["status"]; }
  const json& spec() const {
    static const json kEmpty = json::object();
    auto it = job.find("spec");
    return it != job.end() && it->is_object() ? *it : kEmpty;
  }
};

// Spec readers (a missing or mistyped field reads as its default).
std::optional<int64_t> spec_int(const json& job, const char* field);
bool job_suspended(const json& job);
// Only pods that reached Failed are replaced (podReplacementPolicy Failed, or a
// podFailurePolicy); otherwise a terminating pod is replaced at once.
bool only_replace_failed(const json& job);

bool has_tracking_finalizer(const json& pod);
// A failed pod, or (unless only failed pods are replaced) one deleted before it succeeded.
bool pod_failed(const json& pod, const json& job);
bool pod_terminating(const json& pod);  // being deleted, not finished

// A job condition as upstream writes one (lastProbeTime and lastTransitionTime now).
json job_condition(const std::string& type, const std::string& reason, const std::string& message,
                   const std::string& now);
// The condition of `type` with status True, or nullptr.
const json* true_condition(const json& job, std::string_view type);
bool job_finished(const json& job);  // Complete or Failed is True

}  // namespace k3c::controllers

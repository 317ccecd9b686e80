// The job controller's counting (upstream's syncJob before manageJob): which pods run, are
// ready or terminating, which finished since the last count, what ends the job (backoffLimit,
// container restarts, activeDeadlineSeconds, a FailJob rule), which indexes succeeded.
#include <algorithm>

#include "core/ids.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/job/job_sync.h"

namespace k3c::controllers {

std::optional<int64_t> spec_int(const json& job, const char* field) {
  const json& spec = job.value("spec", json::object());
  auto it = spec.find(field);
  if (it == spec.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

bool job_suspended(const json& job) {
  return job.value("spec", json::object()).value("suspend", false) == true;
}

bool only_replace_failed(const json& job) {
  const json& spec = job.value("spec", json::object());
  return spec.value("podReplacementPolicy", "") == "Failed" ||
         (spec.contains("podFailurePolicy") && !spec["podFailurePolicy"].is_null());
}

bool has_tracking_finalizer(const json& pod) { return has_finalizer(pod, kJobTrackingFinalizer); }

bool pod_failed(const json& pod, const json& job) {
  std::string phase = pod_phase(pod);
  if (phase == "Failed") return true;
  if (only_replace_failed(job)) return false;
  return being_deleted(pod) && phase != "Succeeded";
}

bool pod_terminating(const json& pod) {
  std::string phase = pod_phase(pod);
  return being_deleted(pod) && phase != "Succeeded" && phase != "Failed";
}

json job_condition(const std::string& type, const std::string& reason, const std::string& message,
                   const std::string& now) {
  return {{"type", type},       {"status", "True"},     {"reason", reason},
          {"message", message}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
}

const json* true_condition(const json& job, std::string_view type) {
  // Found in `job` itself: the condition returned points into it (a copy made by value()
  // ended with this function, and the caller read freed memory).
  auto status = job.find("status");
  if (status == job.end() || !status->is_object()) return nullptr;
  auto c = status->find("conditions");
  if (c == status->end() || !c->is_array()) return nullptr;
  for (const json& cond : *c) {
    if (cond.is_object() && cond.value("type", "") == type && cond.value("status", "") == "True")
      return &cond;
  }
  return nullptr;
}

bool job_finished(const json& job) {
  return true_condition(job, "Complete") || true_condition(job, "Failed");
}

void JobController::count_pods(Sync& s) {
  std::optional<int64_t> completions = spec_int(s.job, "completions");
  const json& failure_policy = s.spec().value("podFailurePolicy", json());
  const json& status = s.status();
  const std::string& key = s.key;
  std::vector<WallTime> new_succeeded, new_failed;
  int64_t new_failed_counted = 0;
  for (const auto& pod : s.pods) {
    if (pod_active(*pod)) {
      s.active.push_back(pod);
      if (pod_ready(*pod)) ++s.ready;
    }
    if (pod_terminating(*pod)) ++s.terminating;
    const std::string& uid = uid_of(*pod);
    if (!has_tracking_finalizer(*pod) || s.expected_rm.count(uid)) continue;
    int ix = completion_index(*pod);
    if (s.indexed && (ix < 0 || ix >= completions.value_or(0))) continue;
    if (pod_phase(*pod) == "Succeeded" && !s.uncounted_succeeded.count(uid)) {
      new_succeeded.push_back(pod_finish_time(*pod));
    } else if (pod_failed(*pod, s.job) && !s.uncounted_failed.count(uid)) {
      new_failed.push_back(pod_finish_time(*pod));
      if (failure_policy.is_null() || match_pod_failure_policy(failure_policy, *pod).counts)
        ++new_failed_counted;
    }
  }
  s.active_count = static_cast<int64_t>(s.active.size());
  s.succeeded = status.value("succeeded", int64_t{0}) + static_cast<int64_t>(new_succeeded.size()) +
                static_cast<int64_t>(s.uncounted_succeeded.size());
  s.failed = status.value("failed", int64_t{0}) + new_failed_counted +
             static_cast<int64_t>(s.uncounted_failed.size());
  {
    std::lock_guard lock(mu_);
    s.backoff = next_backoff_record(backoff_[key], new_succeeded, new_failed);
  }
}

json JobController::finished_condition(Sync& s) {
  const std::string now = rfc3339(s.now);
  const std::string& key = s.key;
  const json& status = s.status();
  const json& failure_policy = s.spec().value("podFailurePolicy", json());
  int64_t backoff_limit = spec_int(s.job, "backoffLimit").value_or(6);
  json finished;
  if (const json* met = true_condition(s.job, "SuccessCriteriaMet")) finished = *met;
  if (finished.is_null()) {
    if (const json* target = true_condition(s.job, "FailureTarget")) {
      finished =
          job_condition("Failed", target->value("reason", ""), target->value("message", ""), now);
    } else if (!failure_policy.is_null()) {
      for (const auto& pod : s.pods) {
        if (!pod_failed(*pod, s.job)) continue;
        auto m = match_pod_failure_policy(failure_policy, *pod);
        if (m.action == "FailJob") {
          finished = job_condition("FailureTarget", "PodFailurePolicy", m.message, now);
          break;
        }
      }
    }
  }
  if (finished.is_null()) {
    auto deadline = spec_int(s.job, "activeDeadlineSeconds");
    auto started = parse_rfc3339(status.value("startTime", ""));
    bool restarts_exceeded = false;
    if (s.spec()
            .value("template", json::object())
            .value("spec", json::object())
            .value("restartPolicy", "") == "OnFailure") {
      // OnFailure: container restarts count towards backoffLimit.
      int64_t restarts = 0;
      for (const auto& pod : s.pods) {
        std::string phase = pod_phase(*pod);
        if (phase != "Running" && phase != "Pending") continue;
        for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
          for (const json& c : pod->value("status", json::object()).value(list, json::array()))
            if (c.is_object()) restarts += c.value("restartCount", int64_t{0});
        }
      }
      restarts_exceeded = backoff_limit == 0 ? restarts > 0 : restarts >= backoff_limit;
    }
    if (s.failed > backoff_limit || restarts_exceeded) {
      finished = job_condition("FailureTarget", "BackoffLimitExceeded",
                               "Job has reached the specified backoff limit", now);
    } else if (deadline && started && !job_suspended(s.job)) {
      auto end = *started + std::chrono::seconds(*deadline);
      if (s.now >= end) {
        finished = job_condition("FailureTarget", "DeadlineExceeded",
                                 "Job was active longer than specified deadline", now);
      } else {
        enqueue_after(key, end - s.now);
      }
    }
  }
  return finished;
}

void JobController::count_succeeded_indexes(Sync& s) {
  int n = static_cast<int>(spec_int(s.job, "completions").value_or(0));
  s.prev_succeeded = parse_indexes(s.status().value("completedIndexes", ""), n);
  std::vector<int> done;
  for (const auto& pod : s.pods) {
    int ix = completion_index(*pod);
    if (pod_phase(*pod) == "Succeeded" && ix >= 0 && ix < n && has_tracking_finalizer(*pod))
      done.push_back(ix);
  }
  std::sort(done.begin(), done.end());
  done.erase(std::unique(done.begin(), done.end()), done.end());
  s.succeeded_indexes = with_indexes(s.prev_succeeded, done);
  s.succeeded = count_indexes(s.succeeded_indexes);
}

bool JobController::follow_suspend(Sync& s) {
  const std::string now = rfc3339(s.now);
  json& status = s.status();
  bool suspend_changed = false;
  // The Suspended condition follows spec.suspend.
  bool suspended = job_suspended(s.job);
  std::string current = condition_status(s.job, "Suspended");
  if (suspended && current != "True") {
    set_condition(status, "Suspended", "True", "JobSuspended", "Job suspended", now);
    suspend_changed = true;
    ctx_.events.record(s.job, "Normal", "Suspended", "Job suspended", "job-controller");
  } else if (!suspended && current == "True") {
    set_condition(status, "Suspended", "False", "JobResumed", "Job resumed", now);
    suspend_changed = true;
    ctx_.events.record(s.job, "Normal", "Resumed", "Job resumed", "job-controller");
    // activeDeadlineSeconds counts from the resume.
    status["startTime"] = now;
  }
  return suspend_changed;
}

}  // namespace k3c::controllers

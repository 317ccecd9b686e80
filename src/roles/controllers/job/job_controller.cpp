#include "roles/controllers/job/job_controller.h"

#include <algorithm>

#include "api/object_selectors.h"
#include "core/ids.h"
#include "roles/controllers/common/claim.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/job/job_sync.h"

namespace k3c::controllers {

namespace {

constexpr std::string_view kOrphanPrefix = "pod:";  // queue keys of pods, not jobs

}  // namespace

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

std::string pod_phase(const json& pod) {
  const json& status = pod.value("status", json::object());
  return status.is_object() ? status.value("phase", "") : "";
}

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
  const json& status = job.value("status", json::object());
  if (!status.is_object()) return nullptr;
  auto c = status.find("conditions");
  if (c == status.end() || !c->is_array()) return nullptr;
  for (const json& cond : *c) {
    if (cond.is_object() && cond.value("type", "") == type && cond.value("status", "") == "True")
      return &cond;
  }
  return nullptr;
}

bool job_finished(const json& job) {
  return true_condition(job, "Complete") || true_condition(job, "Failed");
}

JobController::JobController(ControllerContext& ctx)
    : Controller("job"),
      ctx_(ctx),
      jobs_(ctx.informers.informer(client::resources::kJobs)),
      pods_(ctx.informers.informer(client::resources::kPods)),
      expectations_(ctx.clock) {
  auto changed = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  // A changed activeDeadlineSeconds needs nothing special: every pass schedules the recheck.
  jobs_.add_handler({changed, [=](auto&, auto& now) { changed(now); }, changed});
  pods_.add_handler({[this](const client::ObjectPtr& pod) { pod_changed(nullptr, pod); },
                     [this](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                       pod_changed(old, now);
                     },
                     [this](const client::ObjectPtr& pod) { pod_deleted(pod); }});
}

std::string JobController::job_key_of(const json& pod) const {
  const json* ref = controller_ref(pod);
  if (!ref || ref->value("kind", "") != "Job") return "";
  return namespace_of(pod) + "/" + ref->value("name", "");
}

void JobController::pod_changed(const client::ObjectPtr& old, const client::ObjectPtr& pod) {
  std::string key = job_key_of(*pod);
  if (old) {
    std::string old_key = job_key_of(*old);
    if (!old_key.empty() && old_key != key) enqueue(old_key);
  }
  if (key.empty()) {
    // An orphan: matching jobs may adopt it; a leftover finalizer must go.
    if (has_tracking_finalizer(*pod)) enqueue(std::string(kOrphanPrefix) + client::key_of(*pod));
    Labels labels = api::labels_of(*pod);
    for (const auto& job : jobs_.in_namespace(namespace_of(*pod))) {
      auto selector =
          api::label_selector_of(job->value("spec", json::object()).value("selector", json()));
      if (selector && selector->matches(labels)) enqueue(client::key_of(*job));
    }
    return;
  }
  if (!old) {
    expectations_.creation_observed(key);
  } else if (being_deleted(*pod) && !being_deleted(*old)) {
    expectations_.deletion_observed(key);
  }
  if (!has_tracking_finalizer(*pod)) finalizer_removal_observed(key, uid_of(*pod));
  auto job = jobs_.get(key);
  if (!job || job_finished(*job)) {
    if (has_tracking_finalizer(*pod)) enqueue(std::string(kOrphanPrefix) + client::key_of(*pod));
    if (!job) return;
  }
  enqueue(key);
}

void JobController::pod_deleted(const client::ObjectPtr& pod) {
  std::string key = job_key_of(*pod);
  if (key.empty()) return;
  if (!being_deleted(*pod)) expectations_.deletion_observed(key);
  finalizer_removal_observed(key, uid_of(*pod));
  enqueue(key);
}

void JobController::expect_finalizer_removed(const std::string& key, const std::string& uid) {
  std::lock_guard lock(mu_);
  finalizer_expectations_[key].insert(uid);
}

void JobController::finalizer_removal_observed(const std::string& key, const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = finalizer_expectations_.find(key);
  if (it == finalizer_expectations_.end()) return;
  it->second.erase(uid);
  if (it->second.empty()) finalizer_expectations_.erase(it);
}

std::set<std::string> JobController::expected_removals(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = finalizer_expectations_.find(key);
  return it == finalizer_expectations_.end() ? std::set<std::string>() : it->second;
}

Status JobController::release_orphan_pod(const std::string& pod_key) {
  auto pod = pods_.get(pod_key);
  if (!pod || !has_tracking_finalizer(*pod)) return Status::ok();
  if (const json* ref = controller_ref(*pod)) {
    if (ref->value("kind", "") != "Job" || ref->value("apiVersion", "") != "batch/v1")
      return Status::ok();  // someone else's pod
    auto job = jobs_.get(namespace_of(*pod) + "/" + ref->value("name", ""));
    if (job && uid_of(*job) == ref->value("uid", "") && !job_finished(*job))
      return Status::ok();  // its job counts it
  }
  json patch = {{"metadata", {{"$deleteFromPrimitiveList/finalizers", {kJobTrackingFinalizer}}}}};
  auto written = client::patch(ctx_.client, client::resources::kPods, namespace_of(*pod),
                               name_of(*pod), "application/strategic-merge-patch+json", patch);
  if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  return Status::ok();
}

Status JobController::reconcile(const std::string& key) {
  if (key.rfind(kOrphanPrefix, 0) == 0) return release_orphan_pod(key.substr(kOrphanPrefix.size()));
  auto job = jobs_.get(key);
  if (!job) {
    expectations_.forget(key);
    std::lock_guard lock(mu_);
    finalizer_expectations_.erase(key);
    backoff_.erase(key);
    return Status::ok();
  }
  if (job_finished(*job)) {
    {
      std::lock_guard lock(mu_);
      backoff_.erase(key);
    }
    // A backup: pods of a finished job keep no finalizer.
    for (const auto& pod : pods_.in_namespace(namespace_of(*job))) {
      const json* ref = controller_ref(*pod);
      if (ref && ref->value("uid", "") == uid_of(*job) && has_tracking_finalizer(*pod))
        enqueue(std::string(kOrphanPrefix) + client::key_of(*pod));
    }
    return Status::ok();
  }
  const json& spec = job->value("spec", json::object());
  std::string managed_by = spec.value("managedBy", "");
  if (!managed_by.empty() && managed_by != "kubernetes.io/job-controller") return Status::ok();
  std::string mode = spec.value("completionMode", "NonIndexed");
  if (mode != "NonIndexed" && mode != "Indexed") {
    ctx_.events.record(*job, "Warning", "UnknownCompletionMode",
                       "Skipped Job sync because completion mode is unknown", "job-controller");
    return Status::ok();
  }
  return sync_job(key, *job);
}

Status JobController::sync_job(const std::string& key, const json& shared) {
  Sync s;
  s.key = key;
  s.job = shared;
  s.now = ctx_.clock.wall_now();
  std::string now = rfc3339(s.now);
  json& status = s.status();
  if (!status.is_object()) status = json::object();
  json& uncounted = status["uncountedTerminatedPods"];
  if (!uncounted.is_object()) uncounted = json::object();
  for (const char* list : {"succeeded", "failed"}) {
    auto& into = std::string(list) == "succeeded" ? s.uncounted_succeeded : s.uncounted_failed;
    for (const json& uid : uncounted.value(list, json::array()))
      if (uid.is_string()) into.insert(uid.get<std::string>());
  }
  // Expectations first: a pod created after this check waits for the next pass.
  bool satisfied = expectations_.satisfied(key);
  auto selector = api::label_selector_of(s.spec().value("selector", json()));
  ASSIGN_OR_RETURN(s.pods, claim(ctx_.client, {client::resources::kPods, "batch/v1", "Job"}, s.job,
                                 selector, pods_.in_namespace(namespace_of(s.job))));
  s.expected_rm = expected_removals(key);
  s.indexed = s.spec().value("completionMode", "") == "Indexed";
  std::optional<int64_t> completions = spec_int(s.job, "completions");
  int64_t backoff_limit = spec_int(s.job, "backoffLimit").value_or(6);
  const json& failure_policy = s.spec().value("podFailurePolicy", json());
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
  if (!status.contains("startTime") && !job_suspended(s.job)) status["startTime"] = now;
  {
    std::lock_guard lock(mu_);
    s.backoff = next_backoff_record(backoff_[key], new_succeeded, new_failed);
  }

  if (const json* met = true_condition(s.job, "SuccessCriteriaMet")) s.finished = *met;
  if (s.finished.is_null()) {
    if (const json* target = true_condition(s.job, "FailureTarget")) {
      s.finished =
          job_condition("Failed", target->value("reason", ""), target->value("message", ""), now);
    } else if (!failure_policy.is_null()) {
      for (const auto& pod : s.pods) {
        if (!pod_failed(*pod, s.job)) continue;
        auto m = match_pod_failure_policy(failure_policy, *pod);
        if (m.action == "FailJob") {
          s.finished = job_condition("FailureTarget", "PodFailurePolicy", m.message, now);
          break;
        }
      }
    }
  }
  if (s.finished.is_null()) {
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
      s.finished = job_condition("FailureTarget", "BackoffLimitExceeded",
                                 "Job has reached the specified backoff limit", now);
    } else if (deadline && started && !job_suspended(s.job)) {
      auto end = *started + std::chrono::seconds(*deadline);
      if (s.now >= end) {
        s.finished = job_condition("FailureTarget", "DeadlineExceeded",
                                   "Job was active longer than specified deadline", now);
      } else {
        enqueue_after(key, end - s.now);
      }
    }
  }
  if (s.indexed) {
    int n = static_cast<int>(completions.value_or(0));
    s.prev_succeeded = parse_indexes(status.value("completedIndexes", ""), n);
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

  Status manage_error;
  bool suspend_changed = false;
  if (!s.finished.is_null()) {
    // The job ends: its running pods go (finalizers kept, so they are counted as failed).
    std::vector<client::ObjectPtr> victims = s.active;
    int64_t running = s.active_count;
    int deleted = delete_pods(s, victims, false, manage_error);
    // Not finished while a pod is left or the cache may not show them all yet.
    if (deleted != running || !satisfied) s.finished = json();
  } else {
    bool managed = false;
    if (satisfied && !being_deleted(s.job)) {
      manage_error = manage(s);
      managed = true;
    }
    bool complete = completions ? s.succeeded >= *completions && s.active_count == 0
                                : s.succeeded > 0 && s.active_count == 0;
    if (complete) {
      s.finished = job_condition("SuccessCriteriaMet", "CompletionsReached",
                                 "Reached expected number of succeeded pods", now);
    } else if (managed) {
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
    }
  }
  bool needs_flush = suspend_changed || status.value("active", int64_t{0}) != s.active_count ||
                     status.value("ready", int64_t{-1}) != s.ready ||
                     status.value("terminating", int64_t{-1}) != s.terminating;
  status["active"] = s.active_count;
  status["ready"] = s.ready;
  status["terminating"] = s.terminating;
  RETURN_IF_ERROR(track_status(s, needs_flush));
  return manage_error;
}

}  // namespace k3c::controllers

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

JobController::JobController(ControllerContext& ctx)
    : Controller("job"),
      ctx_(ctx),
      jobs_(ctx.informers.informer(client::resources::kJobs)),
      pods_(ctx.informers.informer(client::resources::kPods)),
      expectations_(ctx.clock),
      calls_("job-calls", kJobMaxParallel, std::chrono::seconds(5)) {
  index_by_controller(pods_);
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

void JobController::status_written(const std::string& key, const json& job) {
  std::lock_guard lock(mu_);
  status_written_[key] = resource_version_number(job);
}

bool JobController::cache_behind_own_write(const std::string& key, const json& cached) const {
  std::lock_guard lock(mu_);
  auto it = status_written_.find(key);
  return it != status_written_.end() && resource_version_number(cached) < it->second;
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
  Status written =
      client::patch_unanswered(ctx_.client, client::resources::kPods, namespace_of(*pod),
                               name_of(*pod), "application/strategic-merge-patch+json", patch);
  return written.code() == Code::kNotFound ? Status::ok() : written;
}

Status JobController::reconcile(const std::string& key) {
  if (key.rfind(kOrphanPrefix, 0) == 0) return release_orphan_pod(key.substr(kOrphanPrefix.size()));
  auto job = jobs_.get(key);
  if (!job) {
    expectations_.forget(key);
    std::lock_guard lock(mu_);
    finalizer_expectations_.erase(key);
    backoff_.erase(key);
    status_written_.erase(key);
    return Status::ok();
  }
  if (cache_behind_own_write(key, *job)) return Status::ok();  // its update event comes
  if (job_finished(*job)) {
    {
      std::lock_guard lock(mu_);
      backoff_.erase(key);
      status_written_.erase(key);
    }
    // A backup: pods of a finished job keep no finalizer.
    for (const auto& pod : controlled_by(pods_, *job)) {
      if (has_tracking_finalizer(*pod)) enqueue(std::string(kOrphanPrefix) + client::key_of(*pod));
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
                                 selector, pods_));
  s.expected_rm = expected_removals(key);
  s.indexed = s.spec().value("completionMode", "") == "Indexed";
  count_pods(s);
  if (!status.contains("startTime") && !job_suspended(s.job)) status["startTime"] = now;
  s.finished = finished_condition(s);
  if (s.indexed) count_succeeded_indexes(s);

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
    auto completions = spec_int(s.job, "completions");
    bool complete = completions ? s.succeeded >= *completions && s.active_count == 0
                                : s.succeeded > 0 && s.active_count == 0;
    if (complete) {
      s.finished = job_condition("SuccessCriteriaMet", "CompletionsReached",
                                 "Reached expected number of succeeded pods", now);
    } else if (managed) {
      suspend_changed = follow_suspend(s);
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

// The job controller's status half (upstream's trackJobStatusAndRemoveFinalizers): finished
// pods enter status.uncountedTerminatedPods, the status is written, their tracking finalizers
// are removed, and only then do they move into succeeded/failed. A crash between any two steps
// neither loses a pod nor counts one twice.

#include "core/ids.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/common/parallel_calls.h"
#include "roles/controllers/job/job_sync.h"

namespace k3c::controllers {

namespace {

constexpr size_t kMaxUncounted = 500;  // keeps the status small, as upstream

json uid_list(const std::vector<std::string>& uids) {
  json out = json::array();
  for (const auto& u : uids) out.push_back(u);
  return out;
}

std::vector<std::string> uids_in(const json& uncounted, const char* list) {
  std::vector<std::string> out;
  for (const json& u : uncounted.value(list, json::array()))
    if (u.is_string()) out.push_back(u.get<std::string>());
  return out;
}

// Uncounted pods whose finalizer is gone move into the counters. True when anything moved.
bool count_released(json& status, const std::set<std::string>& with_finalizer) {
  bool changed = false;
  json& uncounted = status["uncountedTerminatedPods"];
  for (const char* list : {"succeeded", "failed"}) {
    std::vector<std::string> kept;
    auto all = uids_in(uncounted, list);
    for (const auto& uid : all)
      if (with_finalizer.count(uid)) kept.push_back(uid);
    if (kept.size() == all.size()) continue;
    changed = true;
    status[list] = status.value(list, int64_t{0}) + static_cast<int64_t>(all.size() - kept.size());
    if (kept.empty()) {
      uncounted.erase(list);
    } else {
      uncounted[list] = uid_list(kept);
    }
  }
  return changed;
}

}  // namespace

Status JobController::write_status(Sync& s) {
  json& status = s.status();
  // Zero counters are omitted as upstream serializes them (ready and terminating are not).
  for (const char* field : {"active", "succeeded", "failed"}) {
    if (status.value(field, int64_t{0}) == 0) status.erase(field);
  }
  if (status.value("completedIndexes", "").empty()) status.erase("completedIndexes");
  auto written = client::update(ctx_.client, client::resources::kJobs, s.job, "status");
  if (!written.is_ok()) return written.status();
  s.job = std::move(written.value());
  status_written(s.key, s.job);
  if (!s.job["status"].is_object()) s.job["status"] = json::object();
  if (!s.job["status"].contains("uncountedTerminatedPods"))
    s.job["status"]["uncountedTerminatedPods"] = json::object();
  return Status::ok();
}

Status JobController::remove_tracking_finalizers(Sync& s,
                                                 const std::vector<client::ObjectPtr>& release,
                                                 std::set<std::string>& with_finalizer) {
  // In parallel; the pods whose removal succeeded leave `with_finalizer`.
  Status remove_error;
  for (const auto& pod : release) expect_finalizer_removed(s.key, uid_of(*pod));
  auto results = parallel_calls<Status>(calls_, release.size(), [&](size_t i) {
    const json& pod = *release[i];
    json patch = {{"metadata", {{"$deleteFromPrimitiveList/finalizers", {kJobTrackingFinalizer}}}}};
    Status r =
        client::patch_unanswered(ctx_.client, client::resources::kPods, namespace_of(pod),
                                 name_of(pod), "application/strategic-merge-patch+json", patch);
    return r.code() == Code::kNotFound ? Status::ok() : r;
  });
  for (size_t i = 0; i < release.size(); ++i) {
    Status r = results[i];
    if (r.is_ok()) {
      with_finalizer.erase(uid_of(*release[i]));
    } else {
      finalizer_removal_observed(s.key, uid_of(*release[i]));
      if (remove_error.is_ok()) remove_error = r;
    }
  }
  return remove_error;
}

void JobController::record_finished(Sync& s) {
  if (s.finished.value("type", "") == "Complete") {
    auto c = spec_int(s.job, "completions");
    if (c && s.status().value("succeeded", int64_t{0}) > *c) {
      ctx_.events.record(s.job, "Warning", "TooManySucceededPods",
                         "Too many succeeded pods running after completion count reached",
                         "job-controller");
    }
    ctx_.events.record(s.job, "Normal", "Completed", "Job completed", "job-controller");
  } else {
    ctx_.events.record(s.job, "Warning", s.finished.value("reason", ""),
                       s.finished.value("message", ""), "job-controller");
  }
}

Status JobController::track_status(Sync& s, bool needs_flush) {
  const std::string now = rfc3339(s.now);
  const json& policy = s.spec().value("podFailurePolicy", json());
  int64_t completions = spec_int(s.job, "completions").value_or(0);
  std::set<std::string> with_finalizer;
  for (const auto& pod : s.pods) {
    if (has_tracking_finalizer(*pod) && !s.expected_rm.count(uid_of(*pod)))
      with_finalizer.insert(uid_of(*pod));
  }
  if (count_released(s.status(), with_finalizer)) needs_flush = true;
  json& uncounted = s.status()["uncountedTerminatedPods"];
  std::vector<std::string> unc_succeeded = uids_in(uncounted, "succeeded");
  std::vector<std::string> unc_failed = uids_in(uncounted, "failed");
  std::vector<client::ObjectPtr> release;
  std::vector<int> new_indexes;
  bool reached_max = false;
  bool failing = !s.finished.is_null() && s.finished.value("type", "") != "SuccessCriteriaMet";
  for (const auto& pod : s.pods) {
    const std::string& uid = uid_of(*pod);
    if (!has_tracking_finalizer(*pod) || s.expected_rm.count(uid)) continue;
    bool failed = pod_failed(*pod, s.job);
    bool succeeded = pod_phase(*pod) == "Succeeded";
    if (!being_deleted(s.job) && s.finished.is_null() && !succeeded && !failed) continue;
    release.push_back(pod);
    int ix = completion_index(*pod);
    if (succeeded && !s.uncounted_failed.count(uid)) {
      if (s.indexed) {
        if (ix >= 0 && ix < completions && !has_index(s.prev_succeeded, ix)) {
          new_indexes.push_back(ix);
          needs_flush = true;
        }
      } else if (!s.uncounted_succeeded.count(uid)) {
        unc_succeeded.push_back(uid);
        needs_flush = true;
      }
    } else if (failed || failing) {
      // Once the job fails, every pod not finished counts as failed.
      if (!s.uncounted_failed.count(uid) && (!s.indexed || (ix >= 0 && ix < completions))) {
        if (policy.is_null() || match_pod_failure_policy(policy, *pod).counts) {
          unc_failed.push_back(uid);
          needs_flush = true;
        }
      }
    }
    if (new_indexes.size() + unc_succeeded.size() + unc_failed.size() >= kMaxUncounted) {
      reached_max = true;
      break;
    }
  }
  json& status = s.status();
  if (!unc_succeeded.empty()) uncounted["succeeded"] = uid_list(unc_succeeded);
  if (!unc_failed.empty()) uncounted["failed"] = uid_list(unc_failed);
  if (s.indexed) {
    std::sort(new_indexes.begin(), new_indexes.end());
    s.succeeded_indexes = with_indexes(s.succeeded_indexes, new_indexes);
    std::string text = format_indexes(s.succeeded_indexes);
    if (text != status.value("completedIndexes", "")) needs_flush = true;
    status["succeeded"] = count_indexes(s.succeeded_indexes);
    status["completedIndexes"] = text;
  }
  // The interim condition is written before any finalizer goes, the final one after.
  if (!s.finished.is_null() && s.finished.value("type", "") == "FailureTarget") {
    status["conditions"].push_back(s.finished);
    needs_flush = true;
    s.finished = job_condition("Failed", s.finished.value("reason", ""),
                               s.finished.value("message", ""), now);
  }
  if (!s.finished.is_null() && s.finished.value("type", "") == "SuccessCriteriaMet") {
    if (!true_condition(s.job, "SuccessCriteriaMet")) {
      status["conditions"].push_back(s.finished);
      needs_flush = true;
    }
    s.finished = job_condition("Complete", s.finished.value("reason", ""),
                               s.finished.value("message", ""), now);
  }
  if (needs_flush) {
    RETURN_IF_ERROR(write_status(s));
    std::lock_guard lock(mu_);
    backoff_[s.key] = s.backoff;
    needs_flush = false;
  }
  Status remove_error = remove_tracking_finalizers(s, release, with_finalizer);
  if (count_released(s.status(), with_finalizer)) needs_flush = true;
  if (!remove_error.is_ok()) {
    if (needs_flush) RETURN_IF_ERROR(write_status(s));
    return remove_error;
  }
  // Finished once nothing is uncounted and no pod is still terminating.
  bool finished = false;
  if (!reached_max && !s.finished.is_null()) {
    const json& unc = s.status()["uncountedTerminatedPods"];
    bool pending = !unc.value("succeeded", json::array()).empty() ||
                   !unc.value("failed", json::array()).empty();
    if (!pending && s.terminating == 0) {
      finished = true;
      json& conditions = s.status()["conditions"];
      if (!conditions.is_array()) conditions = json::array();
      conditions.push_back(s.finished);
      if (s.finished.value("type", "") == "Complete") s.status()["completionTime"] = now;
      needs_flush = true;
    }
  }
  if (needs_flush) RETURN_IF_ERROR(write_status(s));
  if (finished) record_finished(s);
  return Status::ok();
}

}  // namespace k3c::controllers

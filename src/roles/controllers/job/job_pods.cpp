// The job controller's pod half (upstream's manageJob): how many pods should run, which go
// when there are too many, which completion indexes the new ones take, and the pods themselves
// (tracking finalizer, index annotation and label, hostname, JOB_COMPLETION_INDEX).
#include <algorithm>

#include "core/ids.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/common/parallel_calls.h"
#include "roles/controllers/job/job_sync.h"
#include "roles/controllers/replicaset/replica_set_controller.h"

namespace k3c::controllers {

namespace {

constexpr int kMaxPerSync = 500;  // pods created or deleted in one pass, as upstream

// The job's pod template with what every pod of the job carries.
json pod_template(const json& job, bool indexed) {
  json tmpl = job.value("spec", json::object()).value("template", json::object());
  if (!tmpl.is_object()) tmpl = json::object();
  json& meta = tmpl["metadata"];
  if (!meta.is_object()) meta = json::object();
  json& finalizers = meta["finalizers"];
  if (!finalizers.is_array()) finalizers = json::array();
  if (std::find(finalizers.begin(), finalizers.end(), kJobTrackingFinalizer) == finalizers.end())
    finalizers.push_back(kJobTrackingFinalizer);
  if (!indexed) return tmpl;
  // The index reaches the containers through the downward API, from the pod's label.
  json& spec = tmpl["spec"];
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (json& c : spec[list]) {
      json& env = c["env"];
      if (!env.is_array()) env = json::array();
      bool present = std::any_of(env.begin(), env.end(), [](const json& e) {
        return e.is_object() && e.value("name", "") == "JOB_COMPLETION_INDEX";
      });
      if (!present) {
        env.push_back(
            {{"name", "JOB_COMPLETION_INDEX"},
             {"valueFrom",
              {{"fieldRef",
                {{"fieldPath", std::string("metadata.labels['") + kCompletionIndex + "']"}}}}}});
      }
    }
  }
  return tmpl;
}

}  // namespace

int JobController::delete_pods(Sync& s, const std::vector<client::ObjectPtr>& pods,
                               bool drop_finalizer, Status& first_error) {
  if (pods.empty()) return 0;
  expectations_.expect(s.key, 0, static_cast<int>(pods.size()));
  auto results = parallel_calls<Status>(calls_, pods.size(), [&](size_t i) -> Status {
    const json& pod = *pods[i];
    if (drop_finalizer && has_tracking_finalizer(pod)) {
      json patch = {
          {"metadata", {{"$deleteFromPrimitiveList/finalizers", {kJobTrackingFinalizer}}}}};
      RETURN_IF_ERROR(client::patch_unanswered(ctx_.client, client::resources::kPods,
                                               namespace_of(pod), name_of(pod),
                                               "application/strategic-merge-patch+json", patch));
    }
    client::DeleteOptions options;
    options.precondition_uid = uid_of(pod);
    return client::remove(ctx_.client, client::resources::kPods, namespace_of(pod), name_of(pod),
                          options);
  });
  int deleted = 0;
  for (size_t i = 0; i < pods.size(); ++i) {
    Status r = results[i];
    if (r.is_ok() || r.code() == Code::kNotFound) {
      ++deleted;
      if (pod_ready(*pods[i])) --s.ready;
      if (r.is_ok()) {
        ctx_.events.record(s.job, "Normal", "SuccessfulDelete", "Deleted pod: " + name_of(*pods[i]),
                           "job-controller");
      }
      if (!r.is_ok()) expectations_.deletion_observed(s.key);  // will not be observed
      continue;
    }
    expectations_.deletion_observed(s.key);
    ctx_.events.record(s.job, "Warning", "FailedDelete", "Error deleting: " + r.message(),
                       "job-controller");
    if (first_error.is_ok()) first_error = r;
  }
  s.active_count -= deleted;
  s.terminating += deleted;
  return deleted;
}

Status JobController::manage(Sync& s) {
  int64_t parallelism = spec_int(s.job, "parallelism").value_or(1);
  auto completions = spec_int(s.job, "completions");
  Status error;
  if (job_suspended(s.job)) {
    // Suspended: every running pod goes; they are not counted as failures.
    delete_pods(s, s.active, true, error);
    return error;
  }
  int64_t want = 0;
  if (!completions) {
    // Without completions the first success ends the job: keep what runs, start nothing new.
    want = s.succeeded > 0 ? s.active_count : parallelism;
  } else {
    want = std::clamp<int64_t>(*completions - s.succeeded, 0, parallelism);
  }
  // Surplus pods go first: with Indexed, duplicates of an index and indexes out of range.
  std::vector<client::ObjectPtr> surplus, kept;
  if (s.indexed) {
    std::vector<client::ObjectPtr> sorted = s.active;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return completion_index(*a) < completion_index(*b);
    });
    for (size_t i = 0; i < sorted.size(); ++i) {
      int ix = completion_index(*sorted[i]);
      bool duplicate = i + 1 < sorted.size() && completion_index(*sorted[i + 1]) == ix;
      if (ix < 0 || ix >= completions.value_or(0) || duplicate) {
        surplus.push_back(sorted[i]);
      } else {
        kept.push_back(sorted[i]);
      }
    }
  } else {
    kept = s.active;
  }
  int64_t remove_at_least = std::max<int64_t>(s.active_count - want, 0);
  if (static_cast<int64_t>(surplus.size()) < remove_at_least) {
    ReplicaSetController::rank_for_deletion(kept);
    for (const auto& pod : kept) {
      if (static_cast<int64_t>(surplus.size()) >= remove_at_least) break;
      surplus.push_back(pod);
    }
  }
  if (surplus.size() > static_cast<size_t>(kMaxPerSync)) surplus.resize(kMaxPerSync);
  if (!surplus.empty()) {
    delete_pods(s, surplus, true, error);
    return error;
  }
  int64_t terminating = only_replace_failed(s.job) ? s.terminating : 0;
  int64_t diff = want - terminating - s.active_count;
  if (diff <= 0) return Status::ok();
  if (s.backoff.last_failure) {
    auto wait = backoff_remaining(s.backoff.failures, *s.backoff.last_failure, s.now);
    if (wait > std::chrono::nanoseconds(0)) {
      enqueue_after(s.key, std::max<std::chrono::nanoseconds>(wait, std::chrono::seconds(1)));
      return Status::ok();
    }
  }
  diff = std::min<int64_t>(diff, kMaxPerSync);
  std::vector<int> indexes;
  if (s.indexed) {
    std::vector<int> running;
    for (const auto& pod : s.active) running.push_back(completion_index(*pod));
    if (only_replace_failed(s.job)) {
      for (const auto& pod : s.pods)
        if (pod_terminating(*pod)) running.push_back(completion_index(*pod));
    }
    running.erase(std::remove(running.begin(), running.end(), -1), running.end());
    std::sort(running.begin(), running.end());
    running.erase(std::unique(running.begin(), running.end()), running.end());
    Intervals taken = with_indexes(s.succeeded_indexes, running);
    indexes = first_pending_indexes(taken, static_cast<int>(diff),
                                    static_cast<int>(completions.value_or(0)));
    diff = static_cast<int64_t>(indexes.size());
  }
  if (diff == 0) return Status::ok();
  return create_pods(s, static_cast<int>(diff), indexes);
}

Status JobController::create_pods(Sync& s, int count, const std::vector<int>& indexes) {
  const json tmpl = pod_template(s.job, s.indexed);
  auto make_pod = [&](int i) {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", json::object()}};
    json& meta = pod["metadata"];
    for (const char* field : {"labels", "annotations", "finalizers"}) {
      if (tmpl["metadata"].contains(field) &&
          tmpl["metadata"][field].is_object() == (std::string(field) != "finalizers"))
        meta[field] = tmpl["metadata"][field];
    }
    meta["namespace"] = namespace_of(s.job);
    meta["generateName"] = name_of(s.job) + "-";
    meta["ownerReferences"] = json::array({controller_ref_to(s.job, "batch/v1", "Job")});
    pod["spec"] = tmpl.value("spec", json::object());
    if (!indexes.empty()) {
      int ix = indexes[static_cast<size_t>(i)];
      meta["annotations"][kCompletionIndex] = std::to_string(ix);
      meta["labels"][kCompletionIndex] = std::to_string(ix);
      pod["spec"]["hostname"] = name_of(s.job) + "-" + std::to_string(ix);
      meta["generateName"] = indexed_generate_name(name_of(s.job), ix);
    }
    return pod;
  };
  expectations_.expect(s.key, count, 0);
  s.active_count += count;
  // Slow start as upstream: batches of 1, 2, 4, ... so a pod the API refuses costs one
  // request, not hundreds.
  int done = 0;
  for (int batch = 1; done < count; batch = std::min(batch * 2, kJobMaxParallel)) {
    int n = std::min(batch, count - done);
    std::vector<json> batch_pods;
    for (int i = 0; i < n; ++i) batch_pods.push_back(make_pod(done + i));
    auto results = parallel_calls<Result<json>>(calls_, n, [&](size_t i) {
      const json& pod = batch_pods[i];
      return client::create(ctx_.client, client::resources::kPods,
                            pod["metadata"].value("namespace", ""), pod);
    });
    Status failed;
    for (auto& created : results) {
      if (created.is_ok()) {
        ctx_.events.record(s.job, "Normal", "SuccessfulCreate", "Created pod: " + name_of(*created),
                           "job-controller");
      } else {
        expectations_.creation_observed(s.key);
        --s.active_count;
        if (failed.is_ok()) failed = created.status();
      }
    }
    done += n;
    if (!failed.is_ok()) {
      // The rest of this pass is skipped: no longer expected.
      expectations_.lower(s.key, count - done, 0);
      s.active_count -= count - done;
      ctx_.events.record(s.job, "Warning", "FailedCreate", "Error creating: " + failed.message(),
                         "job-controller");
      return failed;
    }
  }
  return Status::ok();
}

}  // namespace k3c::controllers

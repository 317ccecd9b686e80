// Jobs (batch/v1), as upstream's job controller in 1.32: run pods until spec.completions
// succeed (NonIndexed, or Indexed with one pod per completion index), at most
// spec.parallelism at once; replacements after failures wait 10 s doubling to 10 minutes;
// the job fails past backoffLimit, past activeDeadlineSeconds, or when a podFailurePolicy
// FailJob rule matches (Ignore rules do not count a failure); suspend deletes the pods. Pods
// carry the batch.kubernetes.io/job-tracking finalizer until they are counted: a finished pod
// goes to status.uncountedTerminatedPods, loses the finalizer, then moves into
// succeeded/failed, so no pod is counted twice or lost. A job first gets the interim
// SuccessCriteriaMet / FailureTarget condition and Complete / Failed once no pod is left
// running or terminating.
#pragma once

#include <map>
#include <mutex>
#include <set>

#include "core/elastic_pool.h"
#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/common/expectations.h"
#include "roles/controllers/job/job_math.h"

namespace k3c::controllers {

// Pod creates in flight in one slow-start batch (and the job controller's call threads).
inline constexpr int kJobMaxParallel = 32;

class JobController final : public Controller {
 public:
  explicit JobController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

 private:
  struct Sync;  // the state of one reconcile (job_controller.cpp)
  Status sync_job(const std::string& key, const json& job);
  // Fills the pod lists and counters of `s`; the backoff record after new finished pods.
  void count_pods(Sync& s);
  // The condition that ends the job now (SuccessCriteriaMet already written, FailureTarget
  // turned Failed, a new FailureTarget), or null; schedules the activeDeadlineSeconds recheck.
  json finished_condition(Sync& s);
  void count_succeeded_indexes(Sync& s);
  // The Suspended condition follows spec.suspend; true when it changed.
  bool follow_suspend(Sync& s);
  Status manage(Sync& s);
  Status create_pods(Sync& s, int count, const std::vector<int>& indexes);
  // Deletes pods; `drop_finalizer` first (suspend, surplus pods: they are not counted).
  int delete_pods(Sync& s, const std::vector<client::ObjectPtr>& pods, bool drop_finalizer,
                  Status& first_error);
  Status track_status(Sync& s, bool needs_flush);
  Status write_status(Sync& s);
  Status remove_tracking_finalizers(Sync& s, const std::vector<client::ObjectPtr>& release,
                                    std::set<std::string>& with_finalizer);
  void record_finished(Sync& s);  // the Completed / failure event
  // Pods that must lose the tracking finalizer though no live job counts them.
  Status release_orphan_pod(const std::string& pod_key);
  void pod_changed(const client::ObjectPtr& old, const client::ObjectPtr& now);
  void pod_deleted(const client::ObjectPtr& pod);
  std::string job_key_of(const json& pod) const;  // "" when no Job controls it

  // Tracking-finalizer removals the pod cache has not shown yet (upstream's
  // uidTrackingExpectations): such pods are not counted again meanwhile.
  void expect_finalizer_removed(const std::string& key, const std::string& uid);
  void finalizer_removal_observed(const std::string& key, const std::string& uid);
  std::set<std::string> expected_removals(const std::string& key) const;

  ControllerContext& ctx_;
  client::Informer& jobs_;
  client::Informer& pods_;
  Expectations expectations_;
  // The job's revision after this controller's last status write. A pass over an older cached
  // copy waits for the job's update event: counting pods whose finalizers that write let go
  // against the status before it would run their indexes (or completions) a second time.
  void status_written(const std::string& key, const json& job);
  bool cache_behind_own_write(const std::string& key, const json& cached) const;

  mutable std::mutex mu_;  // guards the three maps below
  std::map<std::string, std::set<std::string>> finalizer_expectations_;
  std::map<std::string, BackoffRecord> backoff_;
  std::map<std::string, uint64_t> status_written_;
  ElasticPool calls_;  // creates, deletes and finalizer removals side by side (parallel_calls.h)
};

}  // namespace k3c::controllers

// CronJobs (batch/v1), as upstream's cronjob controller (v2): at each time the schedule names
// (in spec.timeZone, default UTC) it creates the Job "<cronjob>-<minutes since the epoch>" from
// spec.jobTemplate, annotated with batch.kubernetes.io/cronjob-scheduled-timestamp; it honours
// concurrencyPolicy (Allow, Forbid: skip while one runs, Replace: delete the running ones),
// startingDeadlineSeconds (a start later than that is missed), suspend, and "too many missed
// start times" (more than 100: only the latest is started). status.active lists the running
// jobs, lastScheduleTime and lastSuccessfulTime follow them; finished jobs beyond
// successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted, oldest first. Each pass
// requeues the CronJob for its next start time.
#pragma once

#include "core/cron_schedule.h"
#include "core/time_zone.h"
#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class CronJobController final : public Controller {
 public:
  explicit CronJobController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

 private:
  // What one pass decided: a status to write, when to look again.
  struct Pass {
    json cronjob;  // working copy
    bool update_status = false;
    std::optional<std::chrono::nanoseconds> requeue_after;
  };
  Status sync(Pass& p, const std::vector<client::ObjectPtr>& jobs);
  // status.active against the jobs: finished ones leave it, vanished ones too
  // (MissingJob); lastSuccessfulTime follows the completed ones.
  Status reconcile_children(Pass& p, const std::vector<client::ObjectPtr>& jobs);
  Status start_job(Pass& p, SysSeconds scheduled, const TimeZone& zone);
  void cleanup_finished(Pass& p, const std::vector<client::ObjectPtr>& jobs);
  bool delete_job(Pass& p, const json& job);
  void job_changed(const json& job);

  ControllerContext& ctx_;
  client::Informer& cronjobs_;
  client::Informer& jobs_;
};

}  // namespace k3c::controllers

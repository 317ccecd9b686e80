#include "roles/controllers/cronjob/cronjob_controller.h"

#include <algorithm>
#include <set>

#include "core/ids.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/cronjob/schedule_times.h"

namespace k3c::controllers {

namespace {

constexpr const char* kCronJobSource = "cronjob-controller";
constexpr const char* kScheduledAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp";

// The Job's terminal condition ("Complete" or "Failed"), "" while it runs.
std::string finished_as(const json& job) {
  for (const char* type : {"Complete", "Failed"}) {
    if (condition_status(job, type) == "True") return type;
  }
  return "";
}

json& active_list(json& cronjob) {
  json& status = cronjob["status"];
  if (!status.is_object()) status = json::object();
  json& active = status["active"];
  if (!active.is_array()) active = json::array();
  return active;
}

bool in_active(json& cronjob, const std::string& uid) {
  for (const json& ref : active_list(cronjob))
    if (ref.value("uid", "") == uid) return true;
  return false;
}

void remove_from_active(json& cronjob, const std::string& uid) {
  json kept = json::array();
  for (const json& ref : active_list(cronjob))
    if (ref.value("uid", "") != uid) kept.push_back(ref);
  cronjob["status"]["active"] = kept;
}

std::optional<WallTime> time_field(const json& o, const char* a, const char* b) {
  const json& outer = o.value(a, json::object());
  if (!outer.is_object()) return std::nullopt;
  auto it = outer.find(b);
  if (it == outer.end() || !it->is_string()) return std::nullopt;
  return parse_rfc3339(it->get<std::string>());
}

}  // namespace

CronJobController::CronJobController(ControllerContext& ctx)
    : Controller("cronjob"),
      ctx_(ctx),
      cronjobs_(ctx.informers.informer(client::resources::kCronJobs)),
      jobs_(ctx.informers.informer(client::resources::kJobs)) {
  auto changed = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  // Any change (a new schedule too) gets a pass now; the pass requeues for the next start.
  cronjobs_.add_handler({changed, [=](auto&, auto& now) { changed(now); }, nullptr});
  auto job = [this](const client::ObjectPtr& j) { job_changed(*j); };
  jobs_.add_handler({job,
                     [=](auto& old, auto& now) {
                       job(old);
                       job(now);
                     },
                     job});
}

void CronJobController::job_changed(const json& job) {
  const json* ref = controller_ref(job);
  if (!ref || ref->value("kind", "") != "CronJob") return;
  auto cronjob = cronjobs_.get(namespace_of(job) + "/" + ref->value("name", ""));
  if (cronjob && uid_of(*cronjob) == ref->value("uid", "")) enqueue(client::key_of(*cronjob));
}

Status CronJobController::reconcile(const std::string& key) {
  auto cronjob = cronjobs_.get(key);
  if (!cronjob) return Status::ok();
  std::vector<client::ObjectPtr> jobs;
  for (auto& job : jobs_.in_namespace(namespace_of(*cronjob))) {
    const json* ref = controller_ref(*job);
    // As upstream: a job belongs to the CronJob its controller reference names.
    if (ref && ref->value("kind", "") == "CronJob" && ref->value("name", "") == name_of(*cronjob))
      jobs.push_back(job);
  }
  Pass p;
  p.cronjob = *cronjob;
  cleanup_finished(p, jobs);
  Status synced = sync(p, jobs);
  if (p.update_status) {
    json& status = p.cronjob["status"];
    if (status.is_object() && status.value("active", json::array()).empty()) status.erase("active");
    auto written = client::update(ctx_.client, client::resources::kCronJobs, p.cronjob, "status");
    if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  }
  if (p.requeue_after) {
    enqueue_after(key, *p.requeue_after);
    return Status::ok();
  }
  return synced;
}

Status CronJobController::reconcile_children(Pass& p, const std::vector<client::ObjectPtr>& jobs) {
  json& cj = p.cronjob;
  std::set<std::string> children;
  for (const auto& job : jobs) {
    const std::string& uid = uid_of(*job);
    children.insert(uid);
    bool found = in_active(cj, uid);
    std::string finished = finished_as(*job);
    if (!found && finished.empty()) {
      // Perhaps our own status write has not reached the cache: ask the API.
      auto fresh =
          client::get(ctx_.client, client::resources::kCronJobs, namespace_of(cj), name_of(cj));
      if (!fresh.is_ok()) return fresh.status();
      if (in_active(*fresh, uid)) {
        cj = std::move(fresh.value());
        continue;
      }
      ctx_.events.record(cj, "Warning", "UnexpectedJob",
                         "Saw a job that the controller did not create or forgot: " + name_of(*job),
                         kCronJobSource);
    } else if (found && !finished.empty()) {
      remove_from_active(cj, uid);
      ctx_.events.record(cj, "Normal", "SawCompletedJob",
                         "Saw completed job: " + name_of(*job) + ", status: " + finished,
                         kCronJobSource);
      p.update_status = true;
    } else if (finished == "Complete") {
      auto completed = time_field(*job, "status", "completionTime");
      auto last = time_field(cj, "status", "lastSuccessfulTime");
      if (completed && (!last || *completed > *last)) {
        cj["status"]["lastSuccessfulTime"] = rfc3339(*completed);
        p.update_status = true;
      }
    }
  }
  // Active jobs that are gone for good leave the list (the cache may lag: ask the API).
  for (const json& ref : json(active_list(cj))) {
    std::string uid = ref.value("uid", "");
    if (children.count(uid)) continue;
    auto job = client::get(ctx_.client, client::resources::kJobs, ref.value("namespace", ""),
                           ref.value("name", ""));
    if (job.is_ok()) continue;
    if (job.status().code() != Code::kNotFound) return job.status();
    ctx_.events.record(cj, "Normal", "MissingJob",
                       "Active job went missing: " + ref.value("name", ""), kCronJobSource);
    remove_from_active(cj, uid);
    p.update_status = true;
  }
  return Status::ok();
}

Status CronJobController::sync(Pass& p, const std::vector<client::ObjectPtr>& jobs) {
  json& cj = p.cronjob;
  WallTime now = ctx_.clock.wall_now();
  RETURN_IF_ERROR(reconcile_children(p, jobs));
  if (being_deleted(cj)) return Status::ok();

  const json& spec = cj.value("spec", json::object());
  std::string schedule_text = spec.value("schedule", "");
  TimeZone zone;
  if (spec.contains("timeZone") && spec["timeZone"].is_string()) {
    std::string name = spec["timeZone"].get<std::string>();
    auto loaded = load_time_zone(name);
    if (!loaded.is_ok()) {
      ctx_.events.record(cj, "Warning", "UnknownTimeZone",
                         "invalid timeZone: \"" + name + "\": " + loaded.status().message(),
                         kCronJobSource);
      return Status::ok();
    }
    zone = *loaded;
  }
  if (spec.value("suspend", false) == true) return Status::ok();
  auto schedule = parse_cron_schedule(schedule_text);
  if (schedule.is_ok() && !schedule->time_zone.empty()) {
    // TZ= in the schedule (allowed on CronJobs that had it before 1.27) wins.
    auto loaded = load_time_zone(schedule->time_zone);
    if (loaded.is_ok()) {
      zone = *loaded;
    } else {
      schedule = error(Code::kInvalid, "provided bad location " + schedule->time_zone + ": " +
                                           loaded.status().message());
    }
  }
  if (!schedule.is_ok()) {
    ctx_.events.record(
        cj, "Warning", "UnparseableSchedule",
        "unparseable schedule: \"" + schedule_text + "\" : " + schedule.status().message(),
        kCronJobSource);
    return Status::ok();
  }
  std::optional<int64_t> deadline;
  if (spec.contains("startingDeadlineSeconds") && spec["startingDeadlineSeconds"].is_number())
    deadline = spec["startingDeadlineSeconds"].get<int64_t>();
  CronInputs in{*schedule, zone, parse_rfc3339(meta_str(cj, "creationTimestamp")).value_or(now),
                time_field(cj, "status", "lastScheduleTime"), deadline};
  CronTimes times = most_recent_schedule_time(in, now, true);
  if (times.invalid) {
    ctx_.events.record(cj, "Warning", "InvalidSchedule",
                       "invalid schedule: " + schedule_text +
                           " : time difference between two schedules is less than 1 second",
                       kCronJobSource);
    return Status::ok();
  }
  if (times.missed == CronTimes::Missed::kMany) {
    ctx_.events.record(cj, "Warning", "TooManyMissedTimes",
                       "too many missed start times. Set or decrease "
                       ".spec.startingDeadlineSeconds or check clock skew",
                       kCronJobSource);
  }
  p.requeue_after = next_schedule_delay(in, now);
  if (!times.most_recent) return Status::ok();
  SysSeconds scheduled = *times.most_recent;
  if (deadline && scheduled + std::chrono::seconds(*deadline) < now) {
    ctx_.events.record(cj, "Warning", "MissSchedule",
                       "Missed scheduled time to start a job: " + rfc1123z(scheduled),
                       kCronJobSource);
    return Status::ok();
  }
  std::string job_name = scheduled_job_name(name_of(cj), scheduled);
  bool named_active = false;
  for (const json& ref : active_list(cj))
    named_active = named_active || ref.value("name", "") == job_name;
  if (named_active || time_field(cj, "status", "lastScheduleTime") == WallTime(scheduled))
    return Status::ok();
  std::string policy = spec.value("concurrencyPolicy", "Allow");
  if (policy == "Forbid" && !active_list(cj).empty()) {
    ctx_.events.record(cj, "Normal", "JobAlreadyActive",
                       "Not starting job because prior execution is running and concurrency "
                       "policy is Forbid",
                       kCronJobSource);
    return Status::ok();
  }
  if (policy == "Replace") {
    for (const json& ref : json(active_list(cj))) {
      auto job = client::get(ctx_.client, client::resources::kJobs, ref.value("namespace", ""),
                             ref.value("name", ""));
      if (!job.is_ok()) {
        ctx_.events.record(cj, "Warning", "FailedGet", "Get job: " + job.status().message(),
                           kCronJobSource);
        p.requeue_after.reset();
        return job.status();
      }
      if (!delete_job(p, *job)) {
        p.requeue_after.reset();
        return error(Code::kInternal,
                     "could not replace job " + namespace_of(*job) + "/" + name_of(*job));
      }
    }
  }
  Status started = start_job(p, scheduled, zone);
  if (!started.is_ok()) p.requeue_after.reset();
  return started;
}

Status CronJobController::start_job(Pass& p, SysSeconds scheduled, const TimeZone& zone) {
  json& cj = p.cronjob;
  const json& tmpl = cj["spec"].value("jobTemplate", json::object());
  const json& tmeta = tmpl.value("metadata", json::object());
  json annotations = tmeta.value("annotations", json::object());
  if (!annotations.is_object()) annotations = json::object();
  annotations[kScheduledAnnotation] = rfc3339_in(scheduled, zone);
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               {{"name", scheduled_job_name(name_of(cj), scheduled)},
                {"namespace", namespace_of(cj)},
                {"annotations", annotations},
                {"ownerReferences", json::array({controller_ref_to(cj, "batch/v1", "CronJob")})}}},
              {"spec", tmpl.value("spec", json::object())}};
  if (tmeta.contains("labels") && tmeta["labels"].is_object())
    job["metadata"]["labels"] = tmeta["labels"];
  auto created = client::create(ctx_.client, client::resources::kJobs, namespace_of(cj), job);
  json made;
  if (created.is_ok()) {
    made = std::move(created.value());
    ctx_.events.record(cj, "Normal", "SuccessfulCreate", "Created job " + name_of(made),
                       kCronJobSource);
  } else if (created.status().code() == Code::kAlreadyExists) {
    // Created before but not recorded (a crash, a lost status write): record it now, if ours.
    auto existing = client::get(ctx_.client, client::resources::kJobs, namespace_of(cj),
                                job["metadata"]["name"].get<std::string>());
    if (!existing.is_ok()) return existing.status();
    made = std::move(existing.value());
    const json* ref = controller_ref(made);
    if (!ref || ref->value("uid", "") != uid_of(cj) || in_active(cj, uid_of(made)))
      return Status::ok();
  } else {
    ctx_.events.record(cj, "Warning", "FailedCreate",
                       "Error creating job: " + created.status().message(), kCronJobSource);
    return created.status();
  }
  active_list(cj).push_back({{"kind", "Job"},
                             {"namespace", namespace_of(made)},
                             {"name", name_of(made)},
                             {"uid", uid_of(made)},
                             {"apiVersion", "batch/v1"},
                             {"resourceVersion", meta_str(made, "resourceVersion")}});
  cj["status"]["lastScheduleTime"] = rfc3339(WallTime(scheduled));
  p.update_status = true;
  return Status::ok();
}

bool CronJobController::delete_job(Pass& p, const json& job) {
  client::DeleteOptions options;
  options.propagation_policy = "Background";
  Status s = client::remove(ctx_.client, client::resources::kJobs, namespace_of(job), name_of(job),
                            options);
  if (!s.is_ok() && s.code() != Code::kNotFound) {
    ctx_.events.record(p.cronjob, "Warning", "FailedDelete", "Deleted job: " + s.message(),
                       kCronJobSource);
    return false;
  }
  remove_from_active(p.cronjob, uid_of(job));
  ctx_.events.record(p.cronjob, "Normal", "SuccessfulDelete", "Deleted job " + name_of(job),
                     kCronJobSource);
  p.update_status = true;
  return true;
}

void CronJobController::cleanup_finished(Pass& p, const std::vector<client::ObjectPtr>& jobs) {
  const json& spec = p.cronjob.value("spec", json::object());
  for (const char* kind : {"Complete", "Failed"}) {
    const char* field =
        std::string(kind) == "Complete" ? "successfulJobsHistoryLimit" : "failedJobsHistoryLimit";
    if (!spec.contains(field) || !spec[field].is_number_integer()) continue;
    int64_t limit = spec[field].get<int64_t>();
    std::vector<client::ObjectPtr> finished;
    for (const auto& job : jobs)
      if (finished_as(*job) == kind) finished.push_back(job);
    if (static_cast<int64_t>(finished.size()) <= limit) continue;
    // Oldest start first; jobs that never started last; names break ties.
    std::sort(finished.begin(), finished.end(), [](const auto& a, const auto& b) {
      auto sa = time_field(*a, "status", "startTime"), sb = time_field(*b, "status", "startTime");
      if (!sa || !sb) return sa.has_value() && !sb.has_value();
      if (*sa != *sb) return *sa < *sb;
      return name_of(*a) < name_of(*b);
    });
    for (size_t i = 0; i < finished.size() - static_cast<size_t>(limit); ++i)
      delete_job(p, *finished[i]);
  }
}

}  // namespace k3c::controllers

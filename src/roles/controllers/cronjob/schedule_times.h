// When a CronJob should have started a job, as upstream's cronjob controller decides: the most
// recent unmet schedule time since the last one (or since creation), how many were missed
// (more than 100 is "too many"), when to look again, and the job's name for a scheduled time.
// Pure functions, unit-tested.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/cron_schedule.h"
#include "core/time_zone.h"

namespace k3c::controllers {

using WallTime = std::chrono::system_clock::time_point;

struct CronTimes {
  enum class Missed { kNone, kFew, kMany };
  WallTime earliest;                      // last schedule time, creation, or the deadline
  std::optional<SysSeconds> most_recent;  // the latest start time not after now
  Missed missed = Missed::kNone;
  bool invalid = false;  // the schedule never fires ("0 0 30 2 *")
};

struct CronInputs {
  const CronSchedule& schedule;
  const TimeZone& zone;
  WallTime created;
  std::optional<WallTime> last_schedule;
  std::optional<int64_t> starting_deadline_seconds;
};

// Upstream's mostRecentScheduleTime.
CronTimes most_recent_schedule_time(const CronInputs& in, WallTime now, bool with_deadline);

// How long until the next start time is due (plus 100 ms against clock skew, as upstream).
std::chrono::nanoseconds next_schedule_delay(const CronInputs& in, WallTime now);

// "<cronjob>-<scheduled time in minutes since the epoch>".
std::string scheduled_job_name(const std::string& cronjob, SysSeconds scheduled);

// RFC 3339 in the zone's wall clock ("2026-11-30T09:00:00+01:00"), for the
// batch.kubernetes.io/cronjob-scheduled-timestamp annotation.
std::string rfc3339_in(SysSeconds t, const TimeZone& zone);

// RFC 1123 with a numeric zone, in UTC ("Mon, 30 Nov 2026 00:01:00 +0000"): Go's RFC1123Z.
std::string rfc1123z(SysSeconds t);

}  // namespace k3c::controllers

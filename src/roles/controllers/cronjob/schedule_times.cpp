#include "roles/controllers/cronjob/schedule_times.h"

#include <cmath>
#include <cstdio>

namespace k3c::controllers {

namespace {

using std::chrono::seconds;

std::optional<SysSeconds> next_after(const CronInputs& in, WallTime t) {
  return next_activation(in.schedule, in.zone, t);
}

}  // namespace

CronTimes most_recent_schedule_time(const CronInputs& in, WallTime now, bool with_deadline) {
  CronTimes out;
  out.earliest = in.last_schedule.value_or(in.created);
  if (with_deadline && in.starting_deadline_seconds) {
    // Nothing before the deadline will be started any more.
    WallTime deadline = now - seconds(*in.starting_deadline_seconds);
    if (deadline > out.earliest) out.earliest = deadline;
  }
  auto t1 = next_after(in, out.earliest);
  if (!t1) {
    out.invalid = true;
    return out;
  }
  if (now < *t1) return out;
  auto t2 = next_after(in, *t1);
  if (!t2) {
    out.invalid = true;
    return out;
  }
  if (now < *t2) {
    out.most_recent = t1;
    return out;
  }
  // Many starts missed: estimate how many from the spacing of the first two, then walk only
  // the last stretch (two periods back) instead of every missed start.
  int64_t between = (*t2 - *t1).count();
  if (between < 1) {
    out.invalid = true;
    return out;
  }
  int64_t elapsed = std::chrono::duration_cast<seconds>(
                        now - std::chrono::time_point_cast<WallTime::duration>(*t1))
                        .count();
  int64_t missed = elapsed / between + 1;
  SysSeconds potential = *t1 + seconds((missed - 2) * between);
  for (auto t = next_after(in, potential); t && *t <= now; t = next_after(in, *t))
    out.most_recent = t;
  if (missed > 100) {
    out.missed = CronTimes::Missed::kMany;
  } else if (missed > 0) {
    out.missed = CronTimes::Missed::kFew;
  }
  return out;
}

std::chrono::nanoseconds next_schedule_delay(const CronInputs& in, WallTime now) {
  CronTimes times = most_recent_schedule_time(in, now, false);
  WallTime from = now;
  if (!times.invalid) {
    if (times.most_recent) {
      from = *times.most_recent;
    } else if (times.missed == CronTimes::Missed::kNone) {
      from = times.earliest;
    }
  }
  auto next = next_after(in, from);
  if (!next) return std::chrono::hours(24);  // never fires; look again tomorrow
  return *next + std::chrono::milliseconds(100) - now;
}

std::string scheduled_job_name(const std::string& cronjob, SysSeconds scheduled) {
  int64_t minutes = scheduled.time_since_epoch().count() / 60;
  return cronjob + "-" + std::to_string(minutes);
}

std::string rfc3339_in(SysSeconds t, const TimeZone& zone) {
  using namespace std::chrono;
  int64_t unix = t.time_since_epoch().count();
  int offset = zone.offset_at(unix);
  auto local = sys_seconds(seconds(unix + offset));
  auto day = floor<days>(local);
  year_month_day ymd{day};
  hh_mm_ss hms{local - day};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02ld:%02ld:%02ld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()));
  std::string out = buf;
  if (offset == 0) return out + "Z";
  int a = std::abs(offset);
  std::snprintf(buf, sizeof buf, "%c%02d:%02d", offset < 0 ? '-' : '+', a / 3600, a / 60 % 60);
  return out + buf;
}

std::string rfc1123z(SysSeconds t) {
  using namespace std::chrono;
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss hms{t - day};
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04d %02ld:%02ld:%02ld +0000",
                kDays[weekday(day).c_encoding()], static_cast<unsigned>(ymd.day()),
                kMonths[static_cast<unsigned>(ymd.month()) - 1], static_cast<int>(ymd.year()),
                static_cast<long>(hms.hours().count()), static_cast<long>(hms.minutes().count()),
                static_cast<long>(hms.seconds().count()));
  return buf;
}

}  // namespace k3c::controllers

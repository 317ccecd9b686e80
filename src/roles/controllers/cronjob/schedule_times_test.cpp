#include "roles/controllers/cronjob/schedule_times.h"

#include <catch2/catch.hpp>

#include "core/ids.h"

namespace k3c::controllers {
namespace {

using namespace std::chrono_literals;

WallTime schedule_at(const char* text) { return *parse_rfc3339(text); }
std::string show(std::optional<SysSeconds> t) {
  return t ? rfc3339(WallTime(*t)) : std::string("none");
}

TEST_CASE("most recent unmet start time, table") {
  struct Row {
    const char* schedule;
    const char* created;
    const char* last;  // "" when never scheduled
    std::optional<int64_t> deadline;
    const char* now;
    const char* most_recent;
    CronTimes::Missed missed;
  };
  using M = CronTimes::Missed;
  const Row rows[] = {
      // Created at 10:00:30; the first start is 10:01.
      {"*/1 * * * *", "2026-11-30T10:00:30Z", "", {}, "2026-11-30T10:00:50Z", "none", M::kNone},
      {"*/1 * * * *",
       "2026-11-30T10:00:30Z",
       "",
       {},
       "2026-11-30T10:01:00Z",
       "2026-11-30T10:01:00Z",
       M::kNone},
      // Already started at 10:01: nothing until 10:02.
      {"*/1 * * * *",
       "2026-11-30T10:00:30Z",
       "2026-11-30T10:01:00Z",
       {},
       "2026-11-30T10:01:30Z",
       "none",
       M::kNone},
      // Down for five minutes: only the latest start runs.
      {"*/1 * * * *",
       "2026-11-30T10:00:30Z",
       "2026-11-30T10:01:00Z",
       {},
       "2026-11-30T10:06:10Z",
       "2026-11-30T10:06:00Z",
       M::kFew},
      {"0 * * * *",
       "2026-11-01T00:00:00Z",
       "",
       {},
       "2026-11-30T10:30:00Z",
       "2026-11-30T10:00:00Z",
       M::kMany},
      // A deadline bounds how far back starts count.
      {"0 * * * *", "2026-11-01T00:00:00Z", "", 600, "2026-11-30T10:30:00Z", "none", M::kNone},
      {"0 * * * *", "2026-11-01T00:00:00Z", "", 3600, "2026-11-30T10:30:00Z",
       "2026-11-30T10:00:00Z", M::kNone},
      {"@every 90s",
       "2026-11-30T10:00:00Z",
       "",
       {},
       "2026-11-30T10:05:00Z",
       "2026-11-30T10:04:30Z",
       M::kFew},
  };
  for (const Row& r : rows) {
    INFO(r.schedule << " now " << r.now);
    auto schedule = *parse_cron_schedule(r.schedule);
    TimeZone utc;
    std::optional<WallTime> last;
    if (*r.last) last = schedule_at(r.last);
    CronInputs in{schedule, utc, schedule_at(r.created), last, r.deadline};
    CronTimes t = most_recent_schedule_time(in, schedule_at(r.now), true);
    CHECK_FALSE(t.invalid);
    CHECK(show(t.most_recent) == r.most_recent);
    CHECK(t.missed == r.missed);
  }
}

TEST_CASE("a schedule that never fires is invalid; next delay; names; timestamps") {
  TimeZone utc;
  auto never = *parse_cron_schedule("0 0 30 2 *");
  CronInputs bad{never, utc, schedule_at("2026-11-30T00:00:00Z"), std::nullopt, std::nullopt};
  CHECK(most_recent_schedule_time(bad, schedule_at("2026-12-30T00:00:00Z"), true).invalid);

  auto every_minute = *parse_cron_schedule("*/1 * * * *");
  CronInputs in{every_minute, utc, schedule_at("2026-11-30T10:00:30Z"),
                schedule_at("2026-11-30T10:01:00Z"), std::nullopt};
  CHECK(next_schedule_delay(in, schedule_at("2026-11-30T10:01:20Z")) == 40100ms);
  // Missed starts: the next one counts from now.
  CHECK(next_schedule_delay(in, schedule_at("2026-11-30T10:05:20Z")) == 40100ms);

  SysSeconds t{std::chrono::seconds(1796083260)};  // 2026-12-01T00:01:00Z
  CHECK(scheduled_job_name("hello", t) == "hello-29934721");
  CHECK(rfc3339_in(t, utc) == "2026-12-01T00:01:00Z");
  CHECK(rfc3339_in(t, *load_time_zone("Europe/Berlin")) == "2026-12-01T01:01:00+01:00");
  CHECK(rfc3339_in(t, *load_time_zone("America/St_Johns")) == "2026-11-30T20:31:00-03:30");
  CHECK(rfc1123z(t) == "Tue, 01 Dec 2026 00:01:00 +0000");
}

}  // namespace
}  // namespace k3c::controllers

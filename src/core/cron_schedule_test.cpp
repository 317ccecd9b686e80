#include "core/cron_schedule.h"

#include <catch2/catch.hpp>

#include "core/ids.h"

namespace k3c {
namespace {

std::string next_after(const std::string& spec, const std::string& after,
                       const std::string& zone = "") {
  auto s = parse_cron_schedule(spec);
  REQUIRE(s.is_ok());
  auto tz = load_time_zone(zone.empty() ? s->time_zone : zone);
  REQUIRE(tz.is_ok());
  auto t = parse_rfc3339(after);
  REQUIRE(t);
  auto next = next_activation(*s, *tz, *t);
  if (!next) return "never";
  // Shown in the zone's wall clock, as the schedule reads.
  int64_t unix = next->time_since_epoch().count();
  int off = tz->offset_at(unix);
  std::string text =
      rfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(unix + off)));
  return off == 0 ? text
                  : text.substr(0, 19) + (off > 0 ? "+" : "-") +
                        std::to_string(std::abs(off) / 3600) + "h";
}

TEST_CASE("next activations, table") {
  struct Row {
    const char* spec;
    const char* after;
    const char* zone;
    const char* next;
  };
  const Row rows[] = {
      {"*/1 * * * *", "2026-11-30T00:00:00Z", "", "2026-11-30T00:01:00Z"},
      {"*/1 * * * *", "2026-11-30T00:00:59.5Z", "", "2026-11-30T00:01:00Z"},
      {"* * * * *", "2026-12-31T23:59:00Z", "", "2027-01-01T00:00:00Z"},
      {"*/15 * * * *", "2026-11-30T10:16:00Z", "", "2026-11-30T10:30:00Z"},
      {"5/20 * * * *", "2026-11-30T10:26:00Z", "", "2026-11-30T10:45:00Z"},
      {"10-40/10 3 * * *", "2026-11-30T03:40:00Z", "", "2026-12-01T03:10:00Z"},
      {"0 9 * * mon-fri", "2026-11-28T12:00:00Z", "", "2026-11-30T09:00:00Z"},  // Sat -> Mon
      {"0 0 * * SUN", "2026-11-30T00:00:00Z", "", "2026-12-06T00:00:00Z"},
      {"0 0 1,15 * *", "2026-11-16T00:00:00Z", "", "2026-12-01T00:00:00Z"},
      // Day of month and day of week both restricted: either matches (Friday the 4th first).
      {"0 0 13 * 5", "2026-12-01T00:00:00Z", "", "2026-12-04T00:00:00Z"},
      // One of them a *: both must match.
      {"0 0 13 * *", "2026-12-01T00:00:00Z", "", "2026-12-13T00:00:00Z"},
      {"0 12 * feb,Aug *", "2026-03-01T00:00:00Z", "", "2026-08-01T12:00:00Z"},
      {"0 0 29 2 *", "2026-03-01T00:00:00Z", "", "2028-02-29T00:00:00Z"},
      {"0 0 30 2 *", "2026-03-01T00:00:00Z", "", "never"},
      {"@yearly", "2026-11-30T00:00:00Z", "", "2027-01-01T00:00:00Z"},
      {"@annually", "2026-11-30T00:00:00Z", "", "2027-01-01T00:00:00Z"},
      {"@monthly", "2026-11-30T00:00:00Z", "", "2026-12-01T00:00:00Z"},
      {"@weekly", "2026-11-30T00:00:00Z", "", "2026-12-06T00:00:00Z"},
      {"@daily", "2026-11-30T00:00:00Z", "", "2026-12-01T00:00:00Z"},
      {"@midnight", "2026-11-30T07:00:00Z", "", "2026-12-01T00:00:00Z"},
      {"@hourly", "2026-11-30T07:00:00Z", "", "2026-11-30T08:00:00Z"},
      {"@every 90s", "2026-11-30T07:00:00Z", "", "2026-11-30T07:01:30Z"},
      // Time zones: 09:00 in Berlin is 08:00 UTC in winter, shown in Berlin's wall clock.
      {"0 9 * * *", "2026-11-30T08:30:00Z", "Europe/Berlin", "2026-12-01T09:00:00+1h"},
      {"TZ=Asia/Tokyo 0 9 * * *", "2026-11-30T00:30:00Z", "", "2026-12-01T09:00:00+9h"},
      {"CRON_TZ=UTC 0 9 * * *", "2026-11-30T00:30:00Z", "", "2026-11-30T09:00:00Z"},
      // 02:30 does not exist on Berlin's spring day: skipped to the next day.
      {"30 2 * * *", "2026-03-28T12:00:00Z", "Europe/Berlin", "2026-03-30T02:30:00+2h"},
      // Across the autumn change, an hourly schedule keeps real-time hours: 02:00 comes twice.
      {"0 * * * *", "2026-10-24T23:30:00Z", "Europe/Berlin", "2026-10-25T02:00:00+2h"},
      {"0 * * * *", "2026-10-25T00:30:00Z", "Europe/Berlin", "2026-10-25T02:00:00+1h"},
      {"0 * * * *", "2026-10-25T01:30:00Z", "Europe/Berlin", "2026-10-25T03:00:00+1h"},
  };
  for (const Row& r : rows) {
    INFO(r.spec << " after " << r.after << " in " << r.zone);
    CHECK(next_after(r.spec, r.after, r.zone) == r.next);
  }
}

TEST_CASE("parse errors carry robfig's messages") {
  struct Row {
    const char* spec;
    const char* message;
  };
  const Row rows[] = {
      {"", "empty spec string"},
      {"error", "expected exactly 5 fields, found 1: [error]"},
      {"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
      {"60 * * * *", "end of range (60) above maximum (59): 60"},
      {"* 24 * * *", "end of range (24) above maximum (23): 24"},
      {"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
      {"* * * 13 *", "end of range (13) above maximum (12): 13"},
      {"* * * * 7", "end of range (7) above maximum (6): 7"},
      {"5-2 * * * *", "beginning of range (5) beyond end of range (2): 5-2"},
      {"*/0 * * * *", "step of range should be a positive number: */0"},
      {"1-2-3 * * * *", "too many hyphens: 1-2-3"},
      {"*/2/2 * * * *", "too many slashes: */2/2"},
      {"x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"99999999999999999999 * * * *",
       "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
       "\"99999999999999999999\": value out of range"},
      {"9999999999999999999x * * * *",
       "failed to parse int from 9999999999999999999x: strconv.Atoi: parsing "
       "\"9999999999999999999x\": invalid syntax"},
      {"* * * foo *",
       "failed to parse int from foo: strconv.Atoi: parsing \"foo\": invalid syntax"},
      {"@fortnightly", "unrecognized descriptor: @fortnightly"},
      {"@every x", "failed to parse duration @every x: time: invalid duration \"x\""},
      {"@every 5", "failed to parse duration @every 5: time: missing unit in duration \"5\""},
      {"TZ=UTC", "invalid location descriptior: TZ=UTC"},
  };
  for (const Row& r : rows) {
    INFO(r.spec);
    auto s = parse_cron_schedule(r.spec);
    REQUIRE_FALSE(s.is_ok());
    CHECK(s.status().code() == Code::kInvalid);
    CHECK(s.status().message() == r.message);
  }
}

TEST_CASE("fields as bit sets; star bits only for plain * and ?") {
  auto s = *parse_cron_schedule("1,3-5 */12 ? JAN-mar 1/2");
  CHECK(s.minute == 0b111010);
  CHECK(s.hour == ((1u << 0) | (1u << 12)));
  CHECK((s.dom & CronSchedule::kStar) != 0);
  CHECK(s.month == 0b1110);
  CHECK(s.dow == ((1u << 1) | (1u << 3) | (1u << 5)));
  CHECK(parse_cron_schedule("@every 1h30m")->every == std::chrono::seconds(5400));
  CHECK(parse_cron_schedule("@every 10ms")->every == std::chrono::seconds(1));
  CHECK(parse_cron_schedule("TZ=Europe/Berlin @daily")->time_zone == "Europe/Berlin");
}

}  // namespace
}  // namespace k3c

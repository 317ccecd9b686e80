// Cron schedules as CronJobs take them (upstream parses them with robfig/cron v3's
// ParseStandard): five fields "minute hour day-of-month month day-of-week" with lists (1,2),
// ranges (1-5), steps (*/15, 10-40/10, 5/20 meaning 5-max/20), names (jan-dec, sun-sat, any
// case) and ? as *; the macros @yearly @annually @monthly @weekly @daily @midnight @hourly and
// @every <duration>; an optional "TZ=<zone> " or "CRON_TZ=<zone> " prefix. Day of month and day
// of week combine as in cron: when either is a plain * both must match, otherwise either.
//
// Pure functions over values; the error messages are robfig's, which the apiserver returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time_zone.h"

namespace k3c {

struct CronSchedule {
  static constexpr uint64_t kStar = uint64_t{1} << 63;  // the field was * or ?
  uint64_t minute = 0, hour = 0, dom = 0, month = 0, dow = 0;
  std::optional<std::chrono::seconds> every;  // "@every 90s": a fixed period instead
  std::string time_zone;                      // from a TZ= / CRON_TZ= prefix; "" when none
};

// Parses a schedule. Errors are kInvalid with robfig's message ("expected exactly 5 fields,
// found 1: [hello]", "end of range (60) above maximum (59): 60", ...). A TZ= prefix is only
// named here; the caller loads the zone (load_time_zone) and reports a bad one.
Result<CronSchedule> parse_cron_schedule(std::string_view spec);

using SysSeconds = std::chrono::sys_seconds;

// The first activation strictly after `after`, in `zone`'s wall clock (robfig's
// SpecSchedule.Next, DST handling included); nullopt when none comes within five years
// ("0 0 30 2 *").
std::optional<SysSeconds> next_activation(const CronSchedule& schedule, const TimeZone& zone,
                                          std::chrono::system_clock::time_point after);

// Go's time.ParseDuration ("1h30m", "1.5h", "300ms"); kInvalid when malformed.
Result<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

}  // namespace k3c

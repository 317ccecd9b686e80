// IANA time zones as Go's time.LoadLocation knows them: read from the system's zoneinfo
// database (TZif files, /usr/share/zoneinfo or $ZONEINFO), including the POSIX rule at the end
// of a TZif file that covers times after its last transition. CronJob spec.timeZone and the
// cron schedule's TZ= prefix use it. C++20's <chrono> time zones are not in GCC 12's library.
//
// A TimeZone is an immutable value; share it freely between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c {

class TimeZone {
 public:
  TimeZone() : name_("UTC") {}  // UTC
  const std::string& name() const { return name_; }

  // Parses the bytes of a TZif file (versions 1 to 4). Errors are kInvalid.
  static Result<TimeZone> from_tzif(std::string name, std::string_view bytes);

  // Seconds east of UTC in effect at `unix_seconds`.
  int offset_at(int64_t unix_seconds) const;
  // The instant at which the wall clock in this zone reads `local_seconds` (seconds since
  // 1970-01-01T00:00 local). Times in a gap or an overlap resolve as Go's time.Date does.
  int64_t to_unix(int64_t local_seconds) const;

 private:
  // A POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"), for times after the last transition.
  struct Rule {
    int std_offset = 0;  // seconds east of UTC
    int dst_offset = 0;
    bool has_dst = false;
    struct When {
      char kind = 'M';  // 'J' (1-365, no Feb 29), 'D' (0-365), 'M' (month.week.day)
      int day = 0, week = 0, month = 0;
      int time = 7200;  // seconds after local midnight
    } start, end;
  };
  static std::optional<Rule> parse_rule(std::string_view text);
  int rule_offset(int64_t unix_seconds) const;

  std::string name_;
  std::vector<int64_t> transitions_;  // ascending
  std::vector<uint8_t> type_of_;      // per transition: index into offsets_
  std::vector<int> offsets_;          // per local time type
  int first_offset_ = 0;              // before the first transition
  std::optional<Rule> rule_;
};

// The zoneinfo folder: $ZONEINFO when set, else /usr/share/zoneinfo.
std::string default_zoneinfo_dir();

// Loads zone `name` ("Europe/Berlin"; "" and "UTC" are UTC) as Go does. Errors (kInvalid) carry
// Go's messages: "unknown time zone <name>", "time: invalid location name".
Result<TimeZone> load_time_zone(std::string_view name,
                                const std::string& zoneinfo_dir = default_zoneinfo_dir());

}  // namespace k3c

#include "core/time_zone.h"

#include <catch2/catch.hpp>

namespace k3c {
namespace {

// 2026-03-29 01:00 UTC: Europe's spring change; 2026-10-25 01:00 UTC: the autumn one.
constexpr int64_t kSpring2026 = 1774746000;
constexpr int64_t kAutumn2026 = 1792890000;

TEST_CASE("time zones load from zoneinfo as Go's LoadLocation") {
  auto berlin = load_time_zone("Europe/Berlin");
  REQUIRE(berlin.is_ok());
  CHECK(berlin->offset_at(kSpring2026 - 1) == 3600);
  CHECK(berlin->offset_at(kSpring2026) == 7200);
  CHECK(berlin->offset_at(kAutumn2026 - 1) == 7200);
  CHECK(berlin->offset_at(kAutumn2026) == 3600);
  // Far beyond the file's transitions the POSIX rule at its end decides.
  constexpr int64_t kJuly2100 = 4118083200;
  CHECK(berlin->offset_at(kJuly2100) == 7200);
  CHECK(berlin->offset_at(kJuly2100 + 180 * 86400) == 3600);

  CHECK(load_time_zone("").is_ok());
  CHECK(load_time_zone("UTC")->offset_at(kSpring2026) == 0);
  CHECK(load_time_zone("Asia/Kolkata")->offset_at(kSpring2026) == 19800);
  CHECK(load_time_zone("Mars/Olympus").status().message() == "unknown time zone Mars/Olympus");
  CHECK(load_time_zone("Europe").status().message() == "unknown time zone Europe");
  CHECK(load_time_zone("../etc/passwd").status().message() == "time: invalid location name");
  CHECK(load_time_zone("/etc/localtime").status().message() == "time: invalid location name");
}

TEST_CASE("wall-clock times map back to instants, gaps and overlaps as Go's time.Date") {
  auto berlin = *load_time_zone("Europe/Berlin");
  // 01:30 local on the spring day is 00:30 UTC.
  int64_t local_0130 = kSpring2026 + 3600 - 1800;
  CHECK(berlin.to_unix(local_0130) == local_0130 - 3600);
  // 02:30 does not exist: Go lands on 03:30 CEST (01:30 UTC).
  int64_t local_0230 = kSpring2026 + 3600 + 1800;
  CHECK(berlin.to_unix(local_0230) == kSpring2026 + 1800);
}

TEST_CASE("malformed TZif bytes are errors, not crashes") {
  CHECK_FALSE(TimeZone::from_tzif("x", "").is_ok());
  CHECK_FALSE(TimeZone::from_tzif("x", "TZif2").is_ok());
  std::string header(44, '\0');
  header.replace(0, 5, "TZif2");
  header[39] = 1;  // one type, but no data behind the header
  CHECK_FALSE(TimeZone::from_tzif("x", header).is_ok());
}

}  // namespace
}  // namespace k3c

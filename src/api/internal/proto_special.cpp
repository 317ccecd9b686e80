// Time and Duration spellings (see proto_special.h).
#include "api/internal/proto_special.h"

#include <cstdio>

namespace k3c::api::internal {
namespace {

struct CivilDate {
  int64_t year;
  unsigned month, day;
};

// Days since 1970-01-01 -> proleptic Gregorian date (H. Hinnant's civil_from_days).
CivilDate civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

// Appends `value` as `digits` decimal digits with trailing zeros removed (and no dot if all
// are zero): the fraction part of Go's duration format.
void append_fraction(std::string& out, uint64_t value, int digits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*llu", digits, static_cast<unsigned long long>(value));
  std::string frac(buf);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (!frac.empty()) out += "." + frac;
}

}  // namespace

Result<std::string> format_rfc3339(int64_t seconds, int64_t nanos, bool micro) {
  // Keep the arithmetic far from overflow; the year check below is the real bound.
  constexpr int64_t kLimit = int64_t{400} * 366 * 86400 * 100;
  if (seconds > kLimit || seconds < -kLimit || nanos < 0 || nanos > 999'999'999) {
    return error(Code::kBadRequest, "protobuf: time out of range");
  }
  int64_t days = seconds / 86400;
  int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  const CivilDate date = civil_from_days(days);
  if (date.year < 1 || date.year > 9999) {
    return error(Code::kBadRequest,
                 "protobuf: time out of range (year " + std::to_string(date.year) + ")");
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld",
                static_cast<long long>(date.year), date.month, date.day,
                static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                static_cast<long long>(rem % 60));
  std::string out(buf);
  if (micro) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(nanos / 1000));
    out += buf;
  }
  return out + "Z";
}

std::string format_go_duration(int64_t nanoseconds) {
  if (nanoseconds == 0) return "0s";
  const bool negative = nanoseconds < 0;
  // Two's complement negation in unsigned arithmetic also covers INT64_MIN.
  uint64_t u =
      negative ? ~static_cast<uint64_t>(nanoseconds) + 1 : static_cast<uint64_t>(nanoseconds);
  std::string out = negative ? "-" : "";
  if (u < 1'000'000'000) {
    // Below one second Go uses the largest unit that keeps the value at least 1.
    if (u < 1'000) return out + std::to_string(u) + "ns";
    const bool micros = u < 1'000'000;
    const uint64_t unit = micros ? 1'000 : 1'000'000;
    out += std::to_string(u / unit);
    append_fraction(out, u % unit, micros ? 3 : 6);
    return out + (micros ? "µs" : "ms");
  }
  const uint64_t total_seconds = u / 1'000'000'000;
  const uint64_t hours = total_seconds / 3600;
  const uint64_t minutes = total_seconds / 60 % 60;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += std::to_string(total_seconds % 60);
  append_fraction(out, u % 1'000'000'000, 9);
  return out + "s";
}

}  // namespace k3c::api::internal

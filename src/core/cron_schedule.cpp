#include "core/cron_schedule.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <vector>

#include "core/text.h"

namespace k3c {

namespace {

struct Bounds {
  unsigned min, max;
  const std::map<std::string, unsigned>* names;
};

const std::map<std::string, unsigned> kMonthNames = {
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6},
    {"jul", 7}, {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}};
const std::map<std::string, unsigned> kDayNames = {{"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3},
                                                   {"thu", 4}, {"fri", 5}, {"sat", 6}};
const Bounds kMinutes{0, 59, nullptr}, kHours{0, 23, nullptr}, kDom{1, 31, nullptr},
    kMonths{1, 12, &kMonthNames}, kDow{0, 6, &kDayNames};

Status invalid(std::string message) { return error(Code::kInvalid, std::move(message)); }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// Go's strconv.Atoi as robfig uses it: an optional sign, then decimal digits.
Result<unsigned> parse_uint(std::string_view expr) {
  std::string_view digits = expr;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  const bool syntax_ok = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (!syntax_ok) {
    return invalid("failed to parse int from " + std::string(expr) + ": strconv.Atoi: parsing \"" +
                   std::string(expr) + "\": invalid syntax");
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return invalid("failed to parse int from " + std::string(expr) + ": strconv.Atoi: parsing \"" +
                   std::string(expr) + "\": value out of range");
  }
  if (negative && v > 0) {
    return invalid("negative number (-" + std::to_string(v) +
                   ") not allowed: " + std::string(expr));
  }
  return static_cast<unsigned>(std::min<int64_t>(v, 1000));  // beyond any bound: range error
}

Result<unsigned> parse_int_or_name(std::string_view expr, const Bounds& b) {
  if (b.names) {
    std::string lower(expr);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (auto it = b.names->find(lower); it != b.names->end()) return it->second;
  }
  return parse_uint(expr);
}

Result<uint64_t> parse_range(std::string_view expr, const Bounds& b) {
  auto range_and_step = split(expr, '/');
  auto low_and_high = split(range_and_step[0], '-');
  bool single = low_and_high.size() == 1;
  unsigned start = 0, end = 0, step = 1;
  uint64_t extra = 0;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = b.min;
    end = b.max;
    extra = CronSchedule::kStar;
  } else {
    ASSIGN_OR_RETURN(start, parse_int_or_name(low_and_high[0], b));
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      ASSIGN_OR_RETURN(end, parse_int_or_name(low_and_high[1], b));
    } else {
      return invalid("too many hyphens: " + std::string(expr));
    }
  }
  if (range_and_step.size() == 2) {
    ASSIGN_OR_RETURN(step, parse_uint(range_and_step[1]));
    if (single) end = b.max;  // "N/step" means "N-max/step"
    if (step > 1) extra = 0;
  } else if (range_and_step.size() > 2) {
    return invalid("too many slashes: " + std::string(expr));
  }
  std::string e(expr);
  if (start < b.min) {
    return invalid("beginning of range (" + std::to_string(start) + ") below minimum (" +
                   std::to_string(b.min) + "): " + e);
  }
  if (end > b.max) {
    return invalid("end of range (" + std::to_string(end) + ") above maximum (" +
                   std::to_string(b.max) + "): " + e);
  }
  if (start > end) {
    return invalid("beginning of range (" + std::to_string(start) + ") beyond end of range (" +
                   std::to_string(end) + "): " + e);
  }
  if (step == 0) return invalid("step of range should be a positive number: " + e);
  uint64_t bits = 0;
  for (unsigned i = start; i <= end; i += step) bits |= uint64_t{1} << i;
  return bits | extra;
}

// A comma-separated list of ranges (empty items skipped, as Go's FieldsFunc does).
Result<uint64_t> parse_field(std::string_view field, const Bounds& b) {
  uint64_t bits = 0;
  for (auto item : split(field, ',')) {
    if (item.empty()) continue;
    ASSIGN_OR_RETURN(uint64_t r, parse_range(item, b));
    bits |= r;
  }
  return bits;
}

std::vector<std::string_view> fields_of(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

Result<CronSchedule> from_fields(const std::array<std::string_view, 5>& f) {
  CronSchedule s;
  ASSIGN_OR_RETURN(s.minute, parse_field(f[0], kMinutes));
  ASSIGN_OR_RETURN(s.hour, parse_field(f[1], kHours));
  ASSIGN_OR_RETURN(s.dom, parse_field(f[2], kDom));
  ASSIGN_OR_RETURN(s.month, parse_field(f[3], kMonths));
  ASSIGN_OR_RETURN(s.dow, parse_field(f[4], kDow));
  return s;
}

Result<CronSchedule> parse_descriptor(std::string_view d) {
  static const std::map<std::string_view, std::array<std::string_view, 5>> kMacros = {
      {"@yearly", {"0", "0", "1", "1", "*"}},  {"@annually", {"0", "0", "1", "1", "*"}},
      {"@monthly", {"0", "0", "1", "*", "*"}}, {"@weekly", {"0", "0", "*", "*", "0"}},
      {"@daily", {"0", "0", "*", "*", "*"}},   {"@midnight", {"0", "0", "*", "*", "*"}},
      {"@hourly", {"0", "*", "*", "*", "*"}}};
  if (auto it = kMacros.find(d); it != kMacros.end()) return from_fields(it->second);
  constexpr std::string_view kEvery = "@every ";
  if (d.substr(0, kEvery.size()) == kEvery) {
    auto duration = parse_go_duration(d.substr(kEvery.size()));
    if (!duration.is_ok()) {
      return invalid("failed to parse duration " + std::string(d) + ": " +
                     duration.status().message());
    }
    // robfig rounds the period down to whole seconds, at least one.
    auto secs = std::chrono::duration_cast<std::chrono::seconds>(*duration);
    CronSchedule s;
    s.every = *duration < std::chrono::seconds(1) ? std::chrono::seconds(1) : secs;
    return s;
  }
  return invalid("unrecognized descriptor: " + std::string(d));
}

// Civil time in a zone, and back (Go's t.In(loc) fields and time.Date).
struct Civil {
  int year;
  unsigned month, day, hour, minute, second, weekday;
};

Civil civil_of(int64_t t, const TimeZone& zone) {
  using namespace std::chrono;
  int64_t local = t + zone.offset_at(t);
  int64_t d = local / 86400 - (local % 86400 < 0 ? 1 : 0);
  int64_t secs = local - d * 86400;
  year_month_day ymd{sys_days(days(d))};
  return {static_cast<int>(ymd.year()),           static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()),       static_cast<unsigned>(secs / 3600),
          static_cast<unsigned>(secs / 60 % 60),  static_cast<unsigned>(secs % 60),
          weekday(sys_days(days(d))).c_encoding()};
}

// time.Date(y, m, d, h, mi, s, 0, zone): out-of-range months and days normalize.
int64_t date(int y, int m, int d, int h, int mi, int s, const TimeZone& zone) {
  using namespace std::chrono;
  y += (m - 1) / 12 - ((m - 1) % 12 < 0 ? 1 : 0);
  m = ((m - 1) % 12 + 12) % 12 + 1;
  int64_t days_since =
      sys_days(year{y} / month{static_cast<unsigned>(m)} / 1).time_since_epoch().count() + (d - 1);
  return zone.to_unix(days_since * 86400 + h * 3600 + mi * 60 + s);
}

bool has(uint64_t bits, unsigned i) { return (bits >> i) & 1; }

bool day_matches(const CronSchedule& s, const Civil& c) {
  bool dom = has(s.dom, c.day), dow = has(s.dow, c.weekday);
  if ((s.dom & CronSchedule::kStar) || (s.dow & CronSchedule::kStar)) return dom && dow;
  return dom || dow;
}

}  // namespace

Result<CronSchedule> parse_cron_schedule(std::string_view spec) {
  if (spec.empty()) return invalid("empty spec string");
  std::string zone;
  if (spec.substr(0, 3) == "TZ=" || spec.substr(0, 8) == "CRON_TZ=") {
    size_t space = spec.find(' ');
    if (space == std::string_view::npos)
      return invalid("invalid location descriptior: " + std::string(spec));
    size_t eq = spec.find('=');
    zone = std::string(spec.substr(eq + 1, space - eq - 1));
    spec = trim_space(spec.substr(space));
  }
  Result<CronSchedule> parsed = CronSchedule{};
  if (!spec.empty() && spec[0] == '@') {
    parsed = parse_descriptor(spec);
  } else {
    auto f = fields_of(spec);
    if (f.size() != 5) {
      std::string listed = "[";
      for (size_t i = 0; i < f.size(); ++i) listed += (i ? " " : "") + std::string(f[i]);
      return invalid("expected exactly 5 fields, found " + std::to_string(f.size()) + ": " +
                     listed + "]");
    }
    parsed = from_fields({f[0], f[1], f[2], f[3], f[4]});
  }
  if (parsed.is_ok()) parsed->time_zone = zone;
  return parsed;
}

std::optional<SysSeconds> next_activation(const CronSchedule& s, const TimeZone& zone,
                                          std::chrono::system_clock::time_point after) {
  using namespace std::chrono;
  int64_t t = floor<seconds>(after).time_since_epoch().count() + 1;
  if (s.every) return SysSeconds(seconds(t - 1 + s.every->count()));
  bool added = false;
  const int year_limit = civil_of(t, zone).year + 5;
  Civil c{};
  // robfig's walk: find the next matching month, day, hour and minute; a field that wraps
  // around starts the walk over ("goto WRAP" there too). Days step in civil time, hours and
  // minutes in real time, so a skipped DST hour is skipped and a repeated one runs twice.
wrap:
  c = civil_of(t, zone);
  if (c.year > year_limit) return std::nullopt;
  while (!has(s.month, c.month)) {
    if (!added) {
      added = true;
      t = date(c.year, c.month, 1, 0, 0, 0, zone);
      c = civil_of(t, zone);
    }
    t = date(c.year, c.month + 1, c.day, c.hour, c.minute, c.second, zone);
    c = civil_of(t, zone);
    if (c.month == 1) goto wrap;
  }
  while (!day_matches(s, c)) {
    if (!added) {
      added = true;
      t = date(c.year, c.month, c.day, 0, 0, 0, zone);
      c = civil_of(t, zone);
    }
    t = date(c.year, c.month, c.day + 1, c.hour, c.minute, c.second, zone);
    c = civil_of(t, zone);
    // Midnight moved by a DST change: back onto midnight.
    if (c.hour != 0) {
      t += c.hour > 12 ? (24 - int64_t{c.hour}) * 3600 : -int64_t{c.hour} * 3600;
      c = civil_of(t, zone);
    }
    if (c.day == 1) goto wrap;
  }
  while (!has(s.hour, c.hour)) {
    if (!added) {
      added = true;
      t = date(c.year, c.month, c.day, c.hour, 0, 0, zone);
    }
    t += 3600;
    c = civil_of(t, zone);
    if (c.hour == 0) goto wrap;
  }
  while (!has(s.minute, c.minute)) {
    if (!added) {
      added = true;
      t -= ((t % 60) + 60) % 60;
    }
    t += 60;
    c = civil_of(t, zone);
    if (c.minute == 0) goto wrap;
  }
  // Five-field schedules fire at second 0.
  while (c.second != 0) {
    added = true;
    t += 1;
    c = civil_of(t, zone);
    if (c.second == 0) goto wrap;
  }
  return SysSeconds(seconds(t));
}

Result<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  std::string quoted = "\"" + std::string(text) + "\"";
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return invalid("time: invalid duration " + quoted);
  static const std::map<std::string, double> kUnits = {
      {"ns", 1},   {"us", 1e3}, {"\u00b5s", 1e3}, {"\u03bcs", 1e3},
      {"ms", 1e6}, {"s", 1e9},  {"m", 60e9},      {"h", 3600e9}};
  double total = 0;
  while (!s.empty()) {
    size_t n = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
    size_t int_digits = n;
    size_t frac_digits = 0;
    if (n < s.size() && s[n] == '.') {
      ++n;
      size_t f = n;
      while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
      frac_digits = n - f;
    }
    if (int_digits == 0 && frac_digits == 0) return invalid("time: invalid duration " + quoted);
    double value = std::stod("0" + std::string(s.substr(0, n)));
    s.remove_prefix(n);
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !std::isdigit(static_cast<unsigned char>(s[u]))) ++u;
    if (u == 0) return invalid("time: missing unit in duration " + quoted);
    auto unit = kUnits.find(std::string(s.substr(0, u)));
    if (unit == kUnits.end()) {
      return invalid("time: unknown unit \"" + std::string(s.substr(0, u)) + "\" in duration " +
                     quoted);
    }
    total += value * unit->second;
    if (total > 9.2e18) return invalid("time: invalid duration " + quoted);
    s.remove_prefix(u);
  }
  auto ns = std::chrono::nanoseconds(static_cast<int64_t>(total));
  return negative ? -ns : ns;
}

}  // namespace k3c

#include "core/time_zone.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace k3c {

namespace {

constexpr size_t kMaxTzif = 1 << 20;  // real files are a few KiB

int64_t be(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

struct Header {
  int64_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

Header header_at(std::string_view b, size_t at) {
  return {be(b, at + 20, 4), be(b, at + 24, 4), be(b, at + 28, 4),
          be(b, at + 32, 4), be(b, at + 36, 4), be(b, at + 40, 4)};
}

// Bytes of a data block after its header, for `time_size`-byte times.
int64_t block_size(const Header& h, int time_size) {
  return h.timecnt * time_size + h.timecnt + h.typecnt * 6 + h.charcnt +
         h.leapcnt * (time_size + 4) + h.isstdcnt + h.isutcnt;
}

int64_t days_from_civil(int y, unsigned m, unsigned d) {
  using namespace std::chrono;
  return sys_days(year{y} / month{m} / day{d}).time_since_epoch().count();
}

bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// POSIX TZ pieces: "<+03>" or "CET"; "[+-]hh[:mm[:ss]]".
bool skip_name(std::string_view& s) {
  if (!s.empty() && s[0] == '<') {
    auto close = s.find('>');
    if (close == std::string_view::npos) return false;
    s.remove_prefix(close + 1);
    return true;
  }
  size_t n = 0;
  while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
  if (n < 3) return false;
  s.remove_prefix(n);
  return true;
}

std::optional<int> hms(std::string_view& s) {
  int sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  int total = 0;
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (s.empty() || s[0] != ':') break;
      s.remove_prefix(1);
    }
    size_t n = 0;
    int v = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n])) && n < 3) {
      v = v * 10 + (s[n] - '0');
      ++n;
    }
    if (n == 0) return std::nullopt;
    s.remove_prefix(n);
    total += v * (part == 0 ? 3600 : part == 1 ? 60 : 1);
  }
  return sign * total;
}

std::optional<int> number(std::string_view& s) {
  size_t n = 0;
  int v = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n])) && n < 4) {
    v = v * 10 + (s[n] - '0');
    ++n;
  }
  if (n == 0) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

}  // namespace

std::optional<TimeZone::Rule> TimeZone::parse_rule(std::string_view s) {
  Rule r;
  if (!skip_name(s)) return std::nullopt;
  auto std_west = hms(s);
  if (!std_west) return std::nullopt;
  r.std_offset = -*std_west;  // POSIX offsets count west of Greenwich
  if (s.empty()) return r;
  if (!skip_name(s)) return std::nullopt;
  r.has_dst = true;
  r.dst_offset = r.std_offset + 3600;
  if (!s.empty() && s[0] != ',') {
    auto dst_west = hms(s);
    if (!dst_west) return std::nullopt;
    r.dst_offset = -*dst_west;
  }
  if (s.empty()) {
    // No rule given: the US rules of 2007 are POSIX's default.
    r.start = {'M', 0, 2, 3, 7200};
    r.end = {'M', 0, 1, 11, 7200};
    return r;
  }
  for (Rule::When* w : {&r.start, &r.end}) {
    if (s.empty() || s[0] != ',') return std::nullopt;
    s.remove_prefix(1);
    if (s.empty()) return std::nullopt;
    if (s[0] == 'M') {
      s.remove_prefix(1);
      auto m = number(s);
      if (!m || s.empty() || s[0] != '.') return std::nullopt;
      s.remove_prefix(1);
      auto week = number(s);
      if (!week || s.empty() || s[0] != '.') return std::nullopt;
      s.remove_prefix(1);
      auto day = number(s);
      if (!day || *m < 1 || *m > 12 || *week < 1 || *week > 5 || *day > 6) return std::nullopt;
      *w = {'M', *day, *week, *m, 7200};
    } else {
      char kind = 'D';
      if (s[0] == 'J') {
        kind = 'J';
        s.remove_prefix(1);
      }
      auto day = number(s);
      if (!day || *day > 365) return std::nullopt;
      *w = {kind, *day, 0, 0, 7200};
    }
    if (!s.empty() && s[0] == '/') {
      s.remove_prefix(1);
      auto t = hms(s);
      if (!t) return std::nullopt;
      w->time = *t;
    }
  }
  if (!s.empty()) return std::nullopt;
  return r;
}

Result<TimeZone> TimeZone::from_tzif(std::string name, std::string_view b) {
  auto bad = [&] { return error(Code::kInvalid, "malformed time zone file for " + name); };
  if (b.size() < 44 || b.substr(0, 4) != "TZif") return bad();
  Header h = header_at(b, 0);
  if (h.timecnt < 0 || h.typecnt <= 0 || h.charcnt < 0 || h.leapcnt < 0 || h.isstdcnt < 0 ||
      h.isutcnt < 0 || h.typecnt > 255)
    return bad();
  size_t at = 44;
  int time_size = 4;
  if (b[4] >= '2') {
    // Skip the 32-bit block; the 64-bit one follows with its own header.
    at += block_size(h, 4);
    if (b.size() < at + 44 || b.substr(at, 4) != "TZif") return bad();
    h = header_at(b, at);
    at += 44;
    time_size = 8;
    if (h.timecnt < 0 || h.typecnt <= 0 || h.typecnt > 255 || h.charcnt < 0 || h.leapcnt < 0)
      return bad();
  }
  if (b.size() < at + static_cast<size_t>(block_size(h, time_size))) return bad();
  TimeZone tz;
  tz.name_ = std::move(name);
  for (int64_t i = 0; i < h.timecnt; ++i)
    tz.transitions_.push_back(be(b, at + i * time_size, time_size));
  size_t idx_at = at + h.timecnt * time_size;
  for (int64_t i = 0; i < h.timecnt; ++i) {
    uint8_t t = static_cast<uint8_t>(b[idx_at + i]);
    if (t >= h.typecnt) return bad();
    tz.type_of_.push_back(t);
  }
  size_t types_at = idx_at + h.timecnt;
  for (int64_t i = 0; i < h.typecnt; ++i)
    tz.offsets_.push_back(static_cast<int>(be(b, types_at + i * 6, 4)));
  if (!std::is_sorted(tz.transitions_.begin(), tz.transitions_.end())) return bad();
  // Before the first transition: the first standard-time type (RFC 8536: type 0).
  tz.first_offset_ = tz.offsets_[0];
  if (time_size == 8) {
    size_t footer = at + block_size(h, 8);
    if (footer < b.size() && b[footer] == '\n') {
      auto end = b.find('\n', footer + 1);
      if (end != std::string_view::npos && end > footer + 1)
        tz.rule_ = parse_rule(b.substr(footer + 1, end - footer - 1));
    }
  }
  return tz;
}

int TimeZone::rule_offset(int64_t t) const {
  const Rule& r = *rule_;
  if (!r.has_dst) return r.std_offset;
  using namespace std::chrono;
  int64_t local_days = (t + r.std_offset) / 86400 - ((t + r.std_offset) % 86400 < 0 ? 1 : 0);
  int y = static_cast<int>(year_month_day(sys_days(days(local_days))).year());
  auto at = [&](const Rule::When& w, int offset_before) {
    int64_t day;
    if (w.kind == 'J') {
      day = days_from_civil(y, 1, 1) + w.day - 1 + (is_leap(y) && w.day >= 60 ? 1 : 0);
    } else if (w.kind == 'D') {
      day = days_from_civil(y, 1, 1) + w.day;
    } else {
      // Day `w.day` (0 = Sunday) of week `w.week` of the month; week 5 = the last one.
      int64_t first = days_from_civil(y, w.month, 1);
      int weekday = static_cast<int>(((first % 7) + 11) % 7);  // 1970-01-01 was a Thursday
      day = first + (w.day - weekday + 7) % 7 + 7 * (w.week - 1);
      unsigned last = static_cast<unsigned>(
          year_month_day_last(year{y}, month_day_last(month{static_cast<unsigned>(w.month)}))
              .day());
      while (day >= first + last) day -= 7;
    }
    return day * 86400 + w.time - offset_before;
  };
  int64_t start = at(r.start, r.std_offset);
  int64_t end = at(r.end, r.dst_offset);
  bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
  return dst ? r.dst_offset : r.std_offset;
}

int TimeZone::offset_at(int64_t t) const {
  if (transitions_.empty()) return rule_ ? rule_offset(t) : first_offset_;
  if (t < transitions_.front()) return first_offset_;
  if (t >= transitions_.back() && rule_) return rule_offset(t);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  return offsets_[type_of_[(it - transitions_.begin()) - 1]];
}

int64_t TimeZone::to_unix(int64_t local) const {
  int guess = offset_at(local);
  int64_t utc = local - guess;
  int actual = offset_at(utc);
  return actual == guess ? utc : local - actual;
}

std::string default_zoneinfo_dir() {
  const char* env = std::getenv("ZONEINFO");
  return env && *env ? env : "/usr/share/zoneinfo";
}

Result<TimeZone> load_time_zone(std::string_view name, const std::string& dir) {
  if (name.empty() || name == "UTC") return TimeZone();
  // As Go: no absolute paths, no "..", no backslashes.
  if (name[0] == '/' || name[0] == '\\' || name.find("..") != std::string_view::npos ||
      name.find('\\') != std::string_view::npos)
    return error(Code::kInvalid, "time: invalid location name");
  std::string unknown = "unknown time zone " + std::string(name);
  std::ifstream in(dir + "/" + std::string(name), std::ios::binary);
  if (!in) return error(Code::kInvalid, unknown);
  std::string bytes(kMaxTzif + 1, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  if (bytes.size() > kMaxTzif) return error(Code::kInvalid, unknown);
  auto tz = TimeZone::from_tzif(std::string(name), bytes);
  if (!tz.is_ok()) return error(Code::kInvalid, unknown);
  return tz;
}

}  // namespace k3c

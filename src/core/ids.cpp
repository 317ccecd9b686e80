// UUIDs, name suffixes and RFC 3339 time (see ids.h).
#include "core/ids.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <random>

namespace k3c {
namespace {

std::mt19937_64& rng() {
  thread_local std::mt19937_64 gen([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }());
  return gen;
}

std::string format_utc(std::chrono::system_clock::time_point t, bool micro) {
  auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  std::time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string s(buf, n);
  if (micro) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(t - secs).count();
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(us));
    s += buf;
  }
  return s + "Z";
}

}  // namespace

std::string new_uuid() {
  uint64_t hi = rng()(), lo = rng()();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string random_name_suffix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string s;
  for (int i = 0; i < 5; ++i) s += kAlphabet[pick(rng())];
  return s;
}

void seed_this_thread_for_tests(uint64_t seed) { rng().seed(seed); }

std::string rfc3339(std::chrono::system_clock::time_point t) { return format_utc(t, false); }
std::string rfc3339_micro(std::chrono::system_clock::time_point t) { return format_utc(t, true); }

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) return std::nullopt;
  std::chrono::nanoseconds frac{0};
  if (*rest == '.') {
    ++rest;
    long long digits = 0, scale = 1000000000;
    while (*rest >= '0' && *rest <= '9') {
      if (scale > 1) {
        scale /= 10;
        digits += (*rest - '0') * scale;
      }
      ++rest;
    }
    frac = std::chrono::nanoseconds(digits);
  }
  long offset = 0;
  if (*rest == 'Z' || *rest == 'z') {
    ++rest;
  } else if (*rest == '+' || *rest == '-') {
    int hh = 0, mm = 0;
    if (std::sscanf(rest + 1, "%2d:%2d", &hh, &mm) != 2) return std::nullopt;
    offset = (hh * 3600L + mm * 60L) * (*rest == '+' ? 1 : -1);
    rest += 6;
  } else {
    return std::nullopt;
  }
  if (*rest != '\0') return std::nullopt;
  std::time_t tt = timegm(&tm) - offset;
  return std::chrono::system_clock::from_time_t(tt) +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(frac);
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == 0) return "localhost";
  return buf;
}

}  // namespace k3c

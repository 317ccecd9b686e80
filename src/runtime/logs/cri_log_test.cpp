#include "runtime/logs/cri_log.h"

#include <catch2/catch.hpp>

#include "core/ids.h"

namespace k3c::runtime {
namespace {

constexpr std::string_view kLog =
    "2026-11-30T07:00:00.000000001Z stdout F one\n"
    "2026-11-30T07:00:01.5Z stderr P tw\n"
    "2026-11-30T07:00:01.6Z stderr F o\n"
    "not a record\n"
    "2026-11-30T07:00:02Z stdout F three\n"
    "2026-11-30T07:00:03Z stdout F \n";

std::string render(const LogOptions& options, std::string_view bytes) {
  LogRenderer renderer(options);
  return renderer.feed(bytes);
}

TEST_CASE("CRI records parse; anything else is skipped") {
  auto record = parse_cri_record("2026-11-30T07:00:00Z stderr P a b ");
  REQUIRE(record);
  CHECK(record->stream == "stderr");
  CHECK(record->partial);
  CHECK(record->content == "a b ");
  CHECK(parse_cri_record("2026-11-30T07:00:00Z stdout F")->content.empty());
  CHECK_FALSE(parse_cri_record("2026-11-30T07:00:00Z stdin F x"));
  CHECK_FALSE(parse_cri_record("2026-11-30T07:00:00Z stdout X x"));
  CHECK_FALSE(parse_cri_record(""));
  CHECK_FALSE(parse_cri_record(" stdout F x"));
}

TEST_CASE("the renderer joins partial records and applies the options") {
  CHECK(render({}, kLog) == "one\ntwo\nthree\n\n");
  LogOptions stamped;
  stamped.timestamps = true;
  CHECK(render(stamped, kLog.substr(0, 44)) == "2026-11-30T07:00:00.000000001Z one\n");
  LogOptions since;
  since.since = parse_rfc3339("2026-11-30T07:00:01.55Z");
  CHECK(render(since, kLog) == "o\nthree\n\n");
  LogOptions limit;
  limit.limit_bytes = 6;
  LogRenderer limited(limit);
  CHECK(limited.feed(kLog) == "one\ntw");
  CHECK(limited.exhausted());
  CHECK(limited.feed(kLog).empty());
}

TEST_CASE("records split across reads come out once complete") {
  LogRenderer renderer({});
  CHECK(renderer.feed("2026-11-30T07:00:00Z stdout F hel").empty());
  CHECK(renderer.feed("lo\n2026-11-30T07:00:00Z std") == "hello\n");
  CHECK(renderer.feed("out F x\n") == "x\n");
}

TEST_CASE("tail offsets count whole lines") {
  CHECK(render({}, kLog.substr(tail_offset(kLog, 1))) == "\n");
  CHECK(render({}, kLog.substr(tail_offset(kLog, 3))) == "two\nthree\n\n");
  CHECK(tail_offset(kLog, 4) == 0);
  CHECK(tail_offset(kLog, 100) == 0);
  CHECK(tail_offset(kLog, 0) == kLog.size());
  CHECK(tail_offset("", 3) == 0);
}

}  // namespace
}  // namespace k3c::runtime

#include "core/ids.h"

#include <catch2/catch.hpp>
#include <set>

namespace k3c {
namespace {

TEST_CASE("uuids are version 4 and distinct") {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    auto u = new_uuid();
    REQUIRE(u.size() == 36);
    REQUIRE(u[14] == '4');
    REQUIRE(std::string("89ab").find(u[19]) != std::string::npos);
    REQUIRE(seen.insert(u).second);
  }
  REQUIRE(random_name_suffix().size() == 5);
}

TEST_CASE("RFC 3339 round trip") {
  auto t = parse_rfc3339("2026-11-29T15:04:05Z");
  REQUIRE(t);
  REQUIRE(rfc3339(*t) == "2026-11-29T15:04:05Z");
  REQUIRE(rfc3339(*parse_rfc3339("2026-11-29T17:04:05+02:00")) == "2026-11-29T15:04:05Z");
  REQUIRE(rfc3339_micro(*parse_rfc3339("2026-11-29T15:04:05.123456Z")) ==
          "2026-11-29T15:04:05.123456Z");
  REQUIRE_FALSE(parse_rfc3339("yesterday"));
  REQUIRE_FALSE(parse_rfc3339("2026-11-29T15:04:05"));
}

}  // namespace
}  // namespace k3c

#include "api/quantity.h"

#include <catch2/catch.hpp>

namespace k3c::api {
namespace {

std::string canonical(std::string_view text) {
  auto q = Quantity::parse(text);
  REQUIRE(q);
  return q->to_string();
}

TEST_CASE("quantities parse with every upstream suffix") {
  CHECK(Quantity::parse("500m")->milli_value() == 500);
  CHECK(Quantity::parse("2")->milli_value() == 2000);
  CHECK(Quantity::parse("1Ki")->value() == 1024);
  CHECK(Quantity::parse("1.5Gi")->value() == 1610612736);
  CHECK(Quantity::parse("128974848")->value() == 128974848);
  CHECK(Quantity::parse("129e6")->value() == 129000000);
  CHECK(Quantity::parse("129M")->value() == 129000000);
  CHECK(Quantity::parse("1E")->value() == 1000000000000000000);
  CHECK(Quantity::parse("8Ei")->value() == INT64_MAX);  // saturated as upstream's Value()
  CHECK(Quantity::parse("100n")->milli_value() == 1);   // rounded up
  CHECK(Quantity::parse("-1")->milli_value() == -1000);
  CHECK(Quantity::parse("0.1")->milli_value() == 100);
  CHECK(Quantity::parse(".5")->milli_value() == 500);
}

TEST_CASE("malformed quantities are refused") {
  for (std::string_view bad : {"", "m", "1K", "1 Gi", "1.2.3", "Gi", "1e", "1ee3", "abc", "1Gi ",
                               "--1", "1e1000", "99999999999999999999999999999999E"}) {
    INFO(bad);
    CHECK_FALSE(Quantity::parse(bad));
  }
}

TEST_CASE("quantities print in upstream's canonical form") {
  CHECK(canonical("1000m") == "1");
  CHECK(canonical("1500m") == "1500m");
  CHECK(canonical("1.5") == "1500m");
  CHECK(canonical("1024Mi") == "1Gi");
  CHECK(canonical("1536Mi") == "1536Mi");
  CHECK(canonical("1.5Gi") == "1536Mi");
  CHECK(canonical("512") == "512");
  CHECK(canonical("1000") == "1k");
  CHECK(canonical("1e3") == "1e3");
  CHECK(canonical("0.5Ki") == "512");
  CHECK(canonical("0") == "0");
  CHECK(canonical("-100m") == "-100m");
  CHECK(canonical("100n") == "100n");
}

TEST_CASE("quantities add, subtract and compare exactly") {
  auto a = *Quantity::parse("100m");
  auto b = *Quantity::parse("0.2");
  CHECK((a + b).milli_value() == 300);
  CHECK((b - a).to_string() == "100m");
  CHECK(a < b);
  CHECK(*Quantity::parse("1Gi") == *Quantity::parse("1024Mi"));
  CHECK(Quantity::from_milli(250).times(4).to_string() == "1");
}

}  // namespace
}  // namespace k3c::api

#include "core/go_format.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/prometheus_text.h"

namespace k3c {
namespace {

TEST_CASE("Go's float spelling, as strconv and the Prometheus text format write values") {
  CHECK(go_float(0) == "0");
  CHECK(go_float(1.5) == "1.5");
  CHECK(go_float(0.07) == "0.07");
  CHECK(go_float(123456) == "123456");
  CHECK(go_float(1234567) == "1.234567e+06");
  CHECK(go_float(12000000) == "1.2e+07");
  CHECK(go_float(0.0001) == "0.0001");
  CHECK(go_float(0.00001) == "1e-05");
  CHECK(go_float(1764550001) == "1.764550001e+09");
  CHECK(go_float(-2.5) == "-2.5");
  CHECK(go_float(1234.5) == "1234.5");
  CHECK(go_float(std::nan("")) == "NaN");
  CHECK(go_float(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(go_float(-std::numeric_limits<double>::infinity()) == "-Inf");
}

TEST_CASE("Prometheus text: label values and help lines are escaped") {
  CHECK(prometheus_escaped("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
  std::string out;
  prometheus_family(out, "x_total", "counter", "Counts \\ things\nhere \"quoted\"");
  CHECK(out == "# HELP x_total Counts \\\\ things\\nhere \"quoted\"\n# TYPE x_total counter\n");
}

}  // namespace
}  // namespace k3c

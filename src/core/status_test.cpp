#include "core/status.h"

#include <catch2/catch.hpp>

namespace k3c {
namespace {

Result<int> half(int x) {
  if (x % 2) return error(Code::kInvalid, "odd");
  return x / 2;
}

Result<int> quarter(int x) {
  ASSIGN_OR_RETURN(int h, half(x));
  return half(h);
}

TEST_CASE("Result carries a value or a status") {
  REQUIRE(quarter(8).value() == 2);
  auto r = quarter(6);
  REQUIRE_FALSE(r.is_ok());
  REQUIRE(r.status().code() == Code::kInvalid);
  REQUIRE(r.status().message() == "odd");
}

TEST_CASE("codes map onto Kubernetes reasons and HTTP codes") {
  REQUIRE(http_code_of(Code::kNotFound) == 404);
  REQUIRE(reason_of(Code::kCompacted) == "Expired");
  REQUIRE(http_code_of(Code::kCompacted) == 410);
  REQUIRE(reason_of(Code::kConflict) == "Conflict");
  REQUIRE(http_code_of(Code::kInvalid) == 422);
  REQUIRE(Status().is_ok());
  REQUIRE(error(Code::kConflict, "x", 7).revision() == 7);
}

}  // namespace
}  // namespace k3c

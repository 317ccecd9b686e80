#include "core/base64.h"

#include <catch2/catch.hpp>
#include <vector>

namespace k3c {
namespace {

TEST_CASE("base64 round trips and rejects garbage") {
  for (std::string s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar",
                                                std::string("\0\xff\x10", 3)}) {
    REQUIRE(base64_decode(base64_encode(s)) == s);
  }
  REQUIRE(base64_encode("foobar") == "Zm9vYmFy");
  REQUIRE(base64_encode("fo") == "Zm8=");
  REQUIRE_FALSE(base64_decode("Zm9"));
  REQUIRE_FALSE(base64_decode("Zm9v!mFy"));
  REQUIRE_FALSE(base64_decode("Zm=vYmFy"));
}

}  // namespace
}  // namespace k3c

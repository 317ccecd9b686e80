// LineBuffer: a watch body's bytes, arriving in any pieces, back as its lines.
#include "client/line_buffer.h"

#include <catch2/catch.hpp>

namespace k3c::client {
namespace {

TEST_CASE("lines come out whole, however the bytes were cut") {
  LineBuffer b;
  b.append("{\"a\":1}\n{\"b\"");
  REQUIRE(b.pop(false) == "{\"a\":1}");
  REQUIRE(b.pop(false) == std::nullopt);  // half a line waits for the rest
  b.append(":2}\n\n{\"c\":3}");
  REQUIRE(b.pop(false) == "{\"b\":2}");
  REQUIRE(b.pop(false) == "");
  REQUIRE(b.pop(false) == std::nullopt);
  REQUIRE_FALSE(b.empty());
  REQUIRE(b.pop(true) == "{\"c\":3}");  // at the end, a last line without its newline
  REQUIRE(b.empty());
  REQUIRE(b.pop(true) == std::nullopt);
}

TEST_CASE("a large backlog comes out in order, and the buffer starts over when drained") {
  LineBuffer b;
  std::string backlog;
  for (int i = 0; i < 20000; ++i) backlog += "line " + std::to_string(i) + "\n";
  b.append(backlog);
  b.append("tail");
  for (int i = 0; i < 20000; ++i) REQUIRE(b.pop(false) == "line " + std::to_string(i));
  REQUIRE(b.pop(false) == std::nullopt);
  b.append(" end\nnext\n");
  REQUIRE(b.pop(false) == "tail end");
  REQUIRE(b.pop(false) == "next");
  REQUIRE(b.empty());
  b.append("again\n");
  REQUIRE(b.pop(false) == "again");
}

}  // namespace
}  // namespace k3c::client

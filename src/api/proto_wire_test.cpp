// Tests for the protobuf wire primitives and the special types' spellings, including
// malformed input.
#include "api/internal/proto_wire.h"

#include <catch2/catch.hpp>

#include "api/internal/proto_special.h"

using namespace k3c;
using namespace k3c::api::internal;

TEST_CASE("wire: varints, fixed and length-delimited fields round-trip") {
  WireWriter w;
  w.add_varint(1, 150)
      .add_varint(2, ~uint64_t{0})
      .add_bytes(3, "hi")
      .add_fixed64(4, 0x0102030405060708)
      .add_fixed32(5, 0xdeadbeef)
      .add_varint(536870911, 1);
  CHECK(w.data().substr(0, 3) == std::string("\x08\x96\x01", 3));  // the protobuf docs' 150
  WireReader r(w.data());
  auto f = r.next();
  REQUIRE(f.is_ok());
  CHECK((f->number == 1 && f->type == WireType::kVarint && f->value == 150));
  f = r.next();
  CHECK(f->value == ~uint64_t{0});  // ten bytes
  f = r.next();
  CHECK((f->type == WireType::kLen && f->bytes == "hi"));
  f = r.next();
  CHECK((f->type == WireType::kFixed64 && f->value == 0x0102030405060708));
  f = r.next();
  CHECK((f->type == WireType::kFixed32 && f->value == 0xdeadbeef));
  f = r.next();
  CHECK(f->number == 536870911);
  CHECK(r.done());
}

TEST_CASE("wire: malformed input is a BadRequest, never a crash") {
  auto first_error = [](std::string data) {
    WireReader r(data);
    while (!r.done()) {
      auto f = r.next();
      if (!f.is_ok()) return f.status();
    }
    return Status::ok();
  };
  CHECK(first_error(std::string("\x08", 1)).code() == Code::kBadRequest);  // key, no value
  CHECK(first_error(std::string("\x08\x96", 2)).message().find("truncated varint") !=
        std::string::npos);
  CHECK(first_error(std::string(11, '\xff')).code() == Code::kBadRequest);  // varint > 10 bytes
  CHECK(first_error(std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11)).code() ==
        Code::kBadRequest);  // > 64 bits
  auto past_end =
      first_error(std::string("\x0a\x05"
                              "abc",
                              5));
  CHECK(past_end.message().find("runs past the end") != std::string::npos);
  CHECK(first_error(std::string("\x0a\xff\xff\xff\xff\x0f", 6)).code() == Code::kBadRequest);
  CHECK(first_error(std::string("\x09\x01\x02", 3)).code() == Code::kBadRequest);  // fixed64 short
  CHECK(first_error(std::string("\x0d\x01", 2)).code() == Code::kBadRequest);      // fixed32 short
  CHECK(first_error(std::string("\x0b", 1)).message().find("wire type 3") != std::string::npos);
  CHECK(first_error(std::string("\x0f\x00", 2)).message().find("wire type 7") != std::string::npos);
  CHECK(first_error(std::string("\x00\x00", 2)).message().find("field number") !=
        std::string::npos);
  CHECK(first_error("").is_ok());
}

TEST_CASE("special types: RFC 3339 times") {
  CHECK(*format_rfc3339(1796040000, 0, false) == "2026-11-30T12:00:00Z");
  CHECK(*format_rfc3339(1, 999999999, false) == "1970-01-01T00:00:01Z");  // Time drops nanos
  CHECK(*format_rfc3339(1796040000, 123456789, true) == "2026-11-30T12:00:00.123456Z");
  CHECK(*format_rfc3339(951782400, 0, false) == "2000-02-29T00:00:00Z");  // leap day
  CHECK(*format_rfc3339(-1, 0, false) == "1969-12-31T23:59:59Z");
  CHECK(*format_rfc3339(-62135596800, 0, false) == "0001-01-01T00:00:00Z");
  CHECK(format_rfc3339(-62135596801, 0, false).status().code() == Code::kBadRequest);
  CHECK(format_rfc3339(253402300800, 0, false).status().code() == Code::kBadRequest);  // year 10000
  CHECK(format_rfc3339(INT64_MAX, 0, false).status().code() == Code::kBadRequest);
  CHECK(format_rfc3339(0, -1, true).status().code() == Code::kBadRequest);
}

TEST_CASE("special types: Go duration strings") {
  CHECK(format_go_duration(0) == "0s");
  CHECK(format_go_duration(3600'000'000'000) == "1h0m0s");
  CHECK(format_go_duration(90'000'000'000) == "1m30s");
  CHECK(format_go_duration(1'500'000'000) == "1.5s");
  CHECK(format_go_duration(-123'000'000'000) == "-2m3s");
  CHECK(format_go_duration(300'000'000) == "300ms");
  CHECK(format_go_duration(1'500) == "1.5µs");
  CHECK(format_go_duration(7) == "7ns");
  CHECK(format_go_duration(9'000'000'001) == "9.000000001s");
  CHECK(format_go_duration(INT64_MIN) == "-2562047h47m16.854775808s");
}

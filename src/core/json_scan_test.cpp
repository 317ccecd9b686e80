#include "core/json_scan.h"

#include <catch2/catch.hpp>

namespace k3c::json_scan {
namespace {

TEST_CASE("json_scan: members and values by their text") {
  const std::string_view doc =
      R"( {"a" : 1, "s":"x\"}y", "o":{"k":[1,{"z":"]"}]}, "n":null, "e":{} } )";
  CHECK(member(doc, "a") == "1");
  CHECK(member(doc, "s") == R"("x\"}y")");
  CHECK(member(doc, "o") == R"({"k":[1,{"z":"]"}]})");
  CHECK(member(*member(doc, "o"), "k") == R"([1,{"z":"]"}])");
  CHECK(member(doc, "n") == "null");
  CHECK(member(doc, "e") == "{}");
  CHECK_FALSE(member(doc, "missing"));
  CHECK_FALSE(member("[1,2]", "a"));
  CHECK_FALSE(member(R"({"a":)", "a"));
  CHECK_FALSE(member(R"({"a":"open)", "a"));

  Cursor c(R"({"k":"v"} tail)");
  size_t members = 0;
  CHECK(walk_object(
      c,
      [&](std::string_view key) -> std::optional<bool> {
        ++members;
        CHECK(key == "k");
        CHECK(c.plain_string() == "v");
        return false;
      },
      /*to_end=*/true));
  CHECK(members == 1);
  CHECK(c.next_offset() == 10);  // "tail" is left for the caller to refuse
  Cursor escaped(R"("a\nb")");
  CHECK_FALSE(escaped.plain_string());
  CHECK(escaped.value() == R"("a\nb")");
}

TEST_CASE("json_scan: an object edited member by member") {
  const std::string_view doc = R"({"a":1,"m":{"rv":"7","n":"x"},"s":[1,{"z":"]"}],"t":"\u00e9"})";
  auto edited = edited_object(doc, [](std::string_view key, std::string_view value,
                                      std::string& replacement) {
    if (key == "a") return MemberEdit::kDrop;
    if (key == "m") {
      replacement = *edited_object(value, [](std::string_view k, std::string_view, std::string&) {
        return k == "rv" ? MemberEdit::kDrop : MemberEdit::kKeep;
      });
      return MemberEdit::kReplace;
    }
    if (key == "t") {
      replacement = R"("new")";
      return MemberEdit::kReplace;
    }
    return MemberEdit::kKeep;
  });
  CHECK(edited == R"({"m":{"n":"x"},"s":[1,{"z":"]"}],"t":"new"})");
  auto keep = [](std::string_view, std::string_view, std::string&) { return MemberEdit::kKeep; };
  CHECK(edited_object(doc, keep) == doc);
  CHECK(edited_object("{}", keep) == "{}");
  CHECK_FALSE(edited_object(R"({"a":1} tail)", keep));
  CHECK_FALSE(edited_object(R"({"a\"b":1})", keep));  // a key with an escape
  CHECK_FALSE(edited_object(R"({"a":[1,2})", keep));
  CHECK_FALSE(edited_object("[1]", keep));
}

}  // namespace
}  // namespace k3c::json_scan

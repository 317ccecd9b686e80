#include "core/regex.h"

#include <catch2/catch.hpp>
#include <string>

using k3c::Regex;

namespace {
Regex must(const std::string& pattern) {
  auto re = Regex::compile(pattern);
  REQUIRE(re.is_ok());
  return *re;
}
}  // namespace

TEST_CASE("regex: Go syntax, searched anywhere") {
  CHECK(must("^rancher/").search("rancher/coredns"));
  CHECK_FALSE(must("^rancher/").search("docker/rancher/x"));
  CHECK(must(R"(\d+)").search("v12"));
  CHECK(must("(?i)abc").search("xABCx"));
  CHECK(must("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").search("my-name"));
  CHECK_FALSE(must("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").search("-bad"));
}

TEST_CASE("regex: bad patterns are errors, never crashes") {
  for (const char* bad : {"(", "a{1001}", "a{2,1}", "[z-a]", "*", "(?<", R"(\8)"}) {
    auto re = Regex::compile(bad);
    INFO(bad);
    CHECK_FALSE(re.is_ok());
    if (!re.is_ok()) CHECK(re.status().message().starts_with("error parsing regexp: "));
  }
}

TEST_CASE("regex: a repeat count past a long's range is no overflow") {
  // std::regex overflowed a long reading it (fuzz.registry). RE2 reads a count it cannot
  // take as plain text; Go refuses it. Either way nothing breaks.
  auto re = Regex::compile("a{2222222222222222222}");
  if (re.is_ok()) CHECK_FALSE(re->search("aaa"));
}

TEST_CASE("regex: patterns that make a backtracking engine explode run in linear time") {
  // (a*)*b against 40 a's is 2^40 steps for std::regex; RE2 answers at once.
  CHECK_FALSE(must("(a*)*b").search(std::string(40, 'a')));
  CHECK_FALSE(must("^(a|aa)+$").search(std::string(5000, 'a') + "b"));
  // Deep nesting does not recurse on the stack per input character.
  CHECK(must("(x+x+)+y").search(std::string(100000, 'x') + "y"));
}

TEST_CASE("regex: replace_all expands the template as Go's ReplaceAllString") {
  const Regex rancher = must("^rancher/(.*)");
  CHECK(rancher.replace_all("rancher/coredns", "mirror/rancher-images/$1") ==
        "mirror/rancher-images/coredns");
  CHECK(rancher.replace_all("library/busybox", "x/$1") == "library/busybox");
  CHECK(rancher.replace_all("rancher/a", "${1}-x") == "a-x");
  // $1x names a group "1x" (there is none): empty, as Go.
  CHECK(rancher.replace_all("rancher/a", "$1x") == "");
  CHECK(rancher.replace_all("rancher/a", "$$1") == "$1");
  CHECK(rancher.replace_all("rancher/a", "cost: $") == "cost: $");
  CHECK(rancher.replace_all("rancher/a", "${1") == "${1");
  CHECK(rancher.replace_all("rancher/a", "$9") == "");
  CHECK(must("(?P<org>[a-z]+)/(?P<repo>[a-z]+)").replace_all("ab/cd", "${repo}.$org") == "cd.ab");
  // Every match; empty matches as Go: "a*" on "baaac" -> "XbXcX".
  CHECK(must("o").replace_all("foo boo", "0") == "f00 b00");
  CHECK(must("a*").replace_all("baaac", "X") == "XbXcX");
  CHECK(must("").replace_all("ab", "-") == "-a-b-");
  CHECK(must("").replace_all("é", "-") == "-é-");
  CHECK(must("x*").replace_all("", "-") == "-");
}

// Parsing of cgroup control files and the check of cgroup paths.
#include "runtime/cgroups/control_files.h"

#include <catch2/catch.hpp>

namespace k3c::runtime::cgroup_files {
namespace {

TEST_CASE("numbers, keyed files and pid lists parse as the kernel writes them") {
  CHECK(parse_u64("1024\n") == 1024u);
  CHECK(parse_u64(" 7 ") == 7u);
  CHECK_FALSE(parse_u64("max"));
  CHECK_FALSE(parse_u64(""));
  CHECK_FALSE(parse_u64("-1"));
  CHECK_FALSE(parse_u64("12abc"));
  const char* events = "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\n";
  CHECK(keyed_value(events, "oom_kill") == 2u);
  CHECK(keyed_value(events, "oom") == 3u);  // whole keys only
  CHECK_FALSE(keyed_value(events, "oom_group_kill"));
  CHECK(keyed_value("usage_usec 99", "usage_usec") == 99u);  // no trailing newline
  CHECK(parse_pids("12\n34\n\nx\n0\n56") == std::vector<pid_t>{12, 34, 56});
}

TEST_CASE("cgroup paths stay inside the hierarchy") {
  CHECK(check_path("kubepods/burstable/pod1234/abc").is_ok());
  CHECK(check_path("k3c-test-42").is_ok());
  CHECK(check_path("../x").message() ==
        "invalid cgroup path \"../x\": must not contain \".\" or \"..\"");
  CHECK(check_path("/abs").message() ==
        "invalid cgroup path \"/abs\": must be relative to the cgroup root");
  CHECK(check_path("a..b").is_ok());  // only whole segments are special
  CHECK(check_path(std::string(2000, 'a')).code() == Code::kInvalid);
}

}  // namespace
}  // namespace k3c::runtime::cgroup_files

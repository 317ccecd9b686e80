// Faults the datastore must survive: a corrupt file, a read-only file system, a full disk.
// The last two need root (they mount a tmpfs in a private mount namespace, in a child
// process, so the host's mounts are never touched); they are skipped otherwise.
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include "child_scenario.h"
#include "store/store.h"
#include "temp_dir.h"

namespace k3c::store {
namespace {

using namespace std::chrono_literals;

Options options_at(const std::string& dir) {
  Options o;
  o.path = dir + "/state.db";
  o.maintenance_interval = 0ms;
  return o;
}

// The scenario runs in a child with a private mount namespace and a tmpfs of `size` at `dir`.
int in_tmpfs_namespace(const std::string& dir, const std::string& size,
                       const std::function<int()>& scenario) {
  return testing::run_in_child({.tmpfs_dir = dir, .tmpfs_size = size}, scenario);
}

TEST_CASE("a corrupt datastore file is refused with a clear error") {
  TempDir dir;
  auto o = options_at(dir.path());
  {
    auto s = open(o);
    REQUIRE(s.is_ok());
    for (int i = 0; i < 400; ++i) {
      REQUIRE((*s)->create("/k/" + std::to_string(i), std::string(1000, 'v')).is_ok());
    }
  }
  REQUIRE_FALSE(std::filesystem::exists(o.path + "-wal"));  // checkpointed at close
  {
    std::fstream f(o.path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096 * 3);
    std::string junk(4096 * 4, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  auto s = open(o);
  REQUIRE_FALSE(s.is_ok());
  REQUIRE(s.status().code() == Code::kCorrupt);
  INFO(s.status().message());
  REQUIRE_THAT(s.status().message(), Catch::Contains(o.path));
}

TEST_CASE("a read-only file system gives a clear error", "[root]") {
  if (geteuid() != 0) {
    WARN("skipped: needs root for a private mount namespace");
    return;
  }
  TempDir dir;
  int rc = in_tmpfs_namespace(dir.path(), "4m", [&]() -> int {
    auto o = options_at(dir.path());
    {
      auto s = open(o);
      CHILD_CHECK(s.is_ok());
      CHILD_CHECK((*s)->create("/a", "1").is_ok());
    }
    CHILD_CHECK(mount(nullptr, dir.path().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0);
    auto s = open(o);
    CHILD_CHECK(!s.is_ok());
    fprintf(stderr, "read-only open says: %s\n", s.status().to_string().c_str());
    CHILD_CHECK(s.status().message().find("read-only") != std::string::npos ||
                s.status().message().find("writable") != std::string::npos);
    // A new datastore in a read-only directory.
    o.path = dir.path() + "/new.db";
    auto n = open(o);
    CHILD_CHECK(!n.is_ok());
    fprintf(stderr, "read-only create says: %s\n", n.status().to_string().c_str());
    return 0;
  });
  REQUIRE(rc == 0);
}

TEST_CASE("a full disk fails writes clearly, loses nothing, and writes resume", "[root]") {
  if (geteuid() != 0) {
    WARN("skipped: needs root for a private mount namespace");
    return;
  }
  TempDir dir;
  int rc = in_tmpfs_namespace(dir.path(), "3m", [&]() -> int {
    auto o = options_at(dir.path());
    auto opened = open(o);
    CHILD_CHECK(opened.is_ok());
    auto& s = *opened;
    // Fill the file system until the store reports it full.
    std::map<std::string, int64_t> acked;
    Status full;
    for (int i = 0; i < 100000 && full.is_ok(); ++i) {
      std::string key = "/fill/" + std::to_string(i);
      auto r = s->create(key, std::string(2000, static_cast<char>('a' + i % 26)));
      if (r.is_ok()) {
        acked[key] = r->mod_revision;
      } else {
        full = r.status();
      }
    }
    fprintf(stderr, "after %zu writes: %s\n", acked.size(), full.to_string().c_str());
    CHILD_CHECK(full.code() == Code::kStorageFull);
    CHILD_CHECK(acked.size() > 100);
    // Reads still work, and the failed write left nothing behind: the revision is the last
    // acknowledged one. (Whether the very next write fails too depends on whether the
    // checkpointer has since given WAL space back, so it is not asserted.)
    CHILD_CHECK(s->count("/fill/").value() == static_cast<int64_t>(acked.size()));
    int64_t rev = s->current_revision();
    int64_t last_acked = 0;
    for (const auto& [key, revision] : acked) last_acked = std::max(last_acked, revision);
    CHILD_CHECK(rev == last_acked);
    // Space returns: the tmpfs grows. Writes resume on the same open store.
    CHILD_CHECK(mount(nullptr, dir.path().c_str(), nullptr, MS_REMOUNT, "size=16m") == 0);
    auto after = s->create("/more", std::string(2000, 'm'));
    CHILD_CHECK(after.is_ok());
    CHILD_CHECK(after->mod_revision == rev + 1);
    s->close();
    // Everything acknowledged is there after a reopen.
    auto again = open(o);
    CHILD_CHECK(again.is_ok());
    for (const auto& [key, revision] : acked) {
      auto g = (*again)->get(key);
      CHILD_CHECK(g.is_ok() && g->mod_revision == revision && g->value.size() == 2000);
    }
    return 0;
  });
  REQUIRE(rc == 0);
}

}  // namespace
}  // namespace k3c::store

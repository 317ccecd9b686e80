// fsGroup ownership over a real temporary tree (root only: chown to any group needs it).
#include "roles/kubelet/volumes/volume_ownership.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "temp_dir.h"

namespace k3c::kubelet::volumes {
namespace {

struct stat stat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

TEST_CASE("fsGroup: group, group bits and setgid directories; links are not followed") {
  if (geteuid() != 0) {
    WARN("skipped: needs root to chown");
    return;
  }
  TempDir dir;
  const std::string v = dir.path() + "/vol";
  std::filesystem::create_directories(v + "/sub");
  std::ofstream(v + "/sub/file") << "x";
  ::chmod((v + "/sub/file").c_str(), 0600);
  const std::string outside = dir.path() + "/outside";
  std::ofstream(outside) << "y";
  const gid_t outside_group = stat_of(outside).st_gid;
  std::filesystem::create_symlink(outside, v + "/link");

  REQUIRE(set_volume_ownership(v, 4242, false, FsGroupChangePolicy::kAlways).is_ok());
  CHECK(stat_of(v).st_gid == 4242);
  CHECK((stat_of(v).st_mode & S_ISGID) != 0);
  CHECK((stat_of(v + "/sub").st_mode & 02070) == 02070);
  CHECK(stat_of(v + "/sub/file").st_gid == 4242);
  CHECK((stat_of(v + "/sub/file").st_mode & 07777) == 0660);
  CHECK(stat_of(v + "/link").st_gid == 4242);    // the link itself
  CHECK(stat_of(outside).st_gid == outside_group);  // not what it points to

  // Read-only volumes get group read only.
  std::ofstream(v + "/ro") << "z";
  ::chmod((v + "/ro").c_str(), 0600);
  REQUIRE(set_volume_ownership(v, 4243, true, FsGroupChangePolicy::kAlways).is_ok());
  CHECK((stat_of(v + "/ro").st_mode & 07777) == 0640);

  // OnRootMismatch: a root that already matches is left alone (so is what is below it).
  ::chown((v + "/ro").c_str(), static_cast<uid_t>(-1), 0);
  REQUIRE(set_volume_ownership(v, 4243, true, FsGroupChangePolicy::kOnRootMismatch).is_ok());
  CHECK(stat_of(v + "/ro").st_gid == 0);
  REQUIRE(set_volume_ownership(v, 4244, true, FsGroupChangePolicy::kOnRootMismatch).is_ok());
  CHECK(stat_of(v + "/ro").st_gid == 4244);

  CHECK_FALSE(set_volume_ownership(v, -1, true, FsGroupChangePolicy::kAlways).is_ok());
}

}  // namespace
}  // namespace k3c::kubelet::volumes

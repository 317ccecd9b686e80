// The filesystem helpers: the unsynced replace; du (blocks of every inode once, links not
// followed).
#include "runtime/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "temp_dir.h"

namespace k3c::runtime {
namespace {

TEST_CASE("write_file_unsynced replaces a file whole and leaves no temp file") {
  TempDir dir;
  const std::string path = dir.path() + "/hosts";
  REQUIRE(write_file_unsynced(path, "old\n").is_ok());
  REQUIRE(write_file_unsynced(path, "new\n").is_ok());
  auto bytes = read_file(path, 64);
  REQUIRE(bytes.is_ok());
  CHECK(*bytes == "new\n");
  auto names = list_dir(dir.path());
  REQUIRE(names.is_ok());
  CHECK(*names == std::vector<std::string>{"hosts"});
  CHECK(!write_file_unsynced(dir.path() + "/missing/hosts", "x").is_ok());
}

TEST_CASE("disk_usage counts what a tree takes on disk, each inode once") {
  TempDir dir;
  const std::string root = dir.path() + "/tree";
  REQUIRE(make_dirs(root + "/sub").is_ok());
  std::ofstream(root + "/sub/data", std::ios::binary) << std::string(256 * 1024, 'x');
  REQUIRE(link((root + "/sub/data").c_str(), (root + "/again").c_str()) == 0);
  REQUIRE(symlink("/usr", (root + "/outside").c_str()) == 0);
  auto usage = disk_usage(root);
  REQUIRE(usage.is_ok());
  // The file once (its hard link not again, the symlink's target not at all), plus the
  // directories and the link itself.
  CHECK(usage->bytes >= 256 * 1024);
  CHECK(usage->bytes < 2 * 256 * 1024);
  CHECK(usage->inodes == 4);  // tree, sub, data, outside
  auto missing = disk_usage(dir.path() + "/nothing");
  REQUIRE(missing.is_ok());
  CHECK(missing->bytes == 0);
}

TEST_CASE("disk_usage stops descending far down a tree a container may have shaped") {
  TempDir dir;
  std::string deep = dir.path() + "/deep";
  REQUIRE(make_dirs(deep).is_ok());
  // 300 levels, each made from the one above.
  int fd = open(deep.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  for (int i = 0; i < 300; ++i) {
    REQUIRE(mkdirat(fd, "d", 0755) == 0);
    const int next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(fd);
    REQUIRE(next >= 0);
    fd = next;
  }
  close(fd);
  auto usage = disk_usage(deep);
  REQUIRE(usage.is_ok());
  // The root and what the directories down to depth 256 hold (257 levels), none deeper.
  CHECK(usage->inodes == 258);
}

}  // namespace
}  // namespace k3c::runtime

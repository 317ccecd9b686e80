// Layer application: entry types and metadata, whiteouts and opaque directories, and every
// way a hostile layer could try to reach outside the tree.
#include "runtime/internal/layer_unpack.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "images/test_images.h"
#include "runtime/digest.h"
#include "temp_dir.h"

namespace k3c::runtime::internal {
namespace {

using namespace k3c::testing;

// A tree to unpack into (<tmp>/root) next to a directory that must stay untouched
// (<tmp>/outside, holding "victim").
class Tree {
 public:
  Tree() {
    mkdir(root().c_str(), 0755);
    mkdir(outside().c_str(), 0755);
    std::ofstream(outside() + "/victim") << "keep me";
    fd_ = open(root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  ~Tree() { close(fd_); }
  std::string root() const { return dir_.path() + "/root"; }
  std::string outside() const { return dir_.path() + "/outside"; }

  Result<UnpackStats> apply(const std::vector<TarEntry>& entries,
                            Compression compression = Compression::kNone) {
    const std::string tar = make_tar(entries, compression);
    const std::string path = dir_.path() + "/layer-" + std::to_string(++layers_);
    std::ofstream(path, std::ios::binary) << tar;
    return apply_layer(fd_, path, sha256_of(tar));
  }
  bool exists(const std::string& rel) const {
    struct stat info;
    return lstat((root() + "/" + rel).c_str(), &info) == 0;
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(root() + "/" + rel);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  struct stat stat_of(const std::string& rel) const {
    struct stat info {};
    lstat((root() + "/" + rel).c_str(), &info);
    return info;
  }
  // The outside dir holds only "victim", unchanged.
  bool outside_untouched() const {
    std::ifstream in(outside() + "/victim");
    std::stringstream text;
    text << in.rdbuf();
    struct stat info;
    return text.str() == "keep me" && stat_of_outside_count() == 1 &&
           lstat((outside() + "/victim").c_str(), &info) == 0 && info.st_nlink == 1;
  }

 private:
  int stat_of_outside_count() const {
    int n = 0;
    if (DIR* d = opendir(outside().c_str())) {
      while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
      closedir(d);
    }
    return n;
  }
  TempDir dir_;
  int fd_ = -1;
  int layers_ = 0;
};

TEST_CASE("Files, directories, modes, mtimes, symlinks, hard links and fifos are made") {
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    Tree tree;
    TarEntry tool = file("bin/tool", "#!/bin/sh\n", 04755);
    TarEntry fifo;
    fifo.path = "run/pipe";
    fifo.type = TarEntry::Type::kFifo;
    auto applied =
        tree.apply({dir("bin", 0750), tool, symlink("bin/sh", "/bin/tool"),
                    hardlink("bin/tool2", "bin/tool"), file("etc/conf", "a=1", 0600), fifo},
                   c);
    REQUIRE(applied.is_ok());
    CHECK(applied->entries == 6);
    CHECK(tree.read("bin/tool") == "#!/bin/sh\n");
    CHECK((tree.stat_of("bin/tool").st_mode & 07777) == 04755);
    CHECK((tree.stat_of("bin").st_mode & 07777) == 0750);
    CHECK(tree.stat_of("bin/tool").st_mtime == 1700000000);
    CHECK(tree.stat_of("bin").st_mtime == 1700000000);  // set after its children were made
    CHECK(S_ISLNK(tree.stat_of("bin/sh").st_mode));
    char target[64] = {};
    readlink((tree.root() + "/bin/sh").c_str(), target, sizeof target - 1);
    CHECK(std::string(target) == "/bin/tool");  // stored as written, resolved in the container
    CHECK(tree.stat_of("bin/tool2").st_ino == tree.stat_of("bin/tool").st_ino);
    CHECK(tree.stat_of("bin/tool").st_nlink == 2);
    CHECK((tree.stat_of("etc").st_mode & 07777) == 0755);  // implied parent
    CHECK(S_ISFIFO(tree.stat_of("run/pipe").st_mode));
  }
}

TEST_CASE("Ownership, device nodes and xattrs as the privileges and filesystem allow") {
  Tree tree;
  TarEntry owned = file("home/u/f", "x");
  owned.uid = 1234;
  owned.gid = 4321;
  TarEntry null_dev;
  null_dev.path = "dev/null";
  null_dev.type = TarEntry::Type::kCharDevice;
  null_dev.mode = 0666;
  null_dev.dev_major = 1;
  null_dev.dev_minor = 3;
  TarEntry tagged = file("tagged", "x");
  tagged.xattrs["user.k3c"] = "v";
  tagged.xattrs["trusted.overlay.opaque"] = "y";  // never honoured from an image
  auto applied = tree.apply({owned, null_dev, tagged});
  REQUIRE(applied.is_ok());
  if (geteuid() == 0) {
    CHECK(tree.stat_of("home/u/f").st_uid == 1234);
    CHECK(tree.stat_of("home/u/f").st_gid == 4321);
    CHECK(S_ISCHR(tree.stat_of("dev/null").st_mode));
    CHECK(tree.stat_of("dev/null").st_rdev == makedev(1, 3));
  } else {
    CHECK(applied->skipped_devices == 1);
    CHECK_FALSE(tree.exists("dev/null"));
  }
  char value[8] = {};
  const ssize_t n = getxattr((tree.root() + "/tagged").c_str(), "user.k3c", value, sizeof value);
  if (n >= 0) {
    CHECK(std::string(value, static_cast<size_t>(n)) == "v");
  } else {
    WARN("this filesystem refuses user xattrs; skipped");
  }
  CHECK(getxattr((tree.root() + "/tagged").c_str(), "trusted.overlay.opaque", value, sizeof value) <
        0);
  CHECK(applied->skipped_xattrs >= 1);
}

TEST_CASE("A whiteout removes a lower file or directory; other files stay") {
  Tree tree;
  REQUIRE(tree.apply({file("a/x", "x"), file("a/y", "y"), file("b/deep/z", "z")}).is_ok());
  REQUIRE(tree.apply({file("a/.wh.x", ""), file(".wh.b", "")}).is_ok());
  CHECK_FALSE(tree.exists("a/x"));
  CHECK_FALSE(tree.exists("a/.wh.x"));
  CHECK(tree.read("a/y") == "y");
  CHECK_FALSE(tree.exists("b"));
  // A whiteout of something that never existed changes nothing (no directory is made).
  REQUIRE(tree.apply({file("nowhere/.wh.x", "")}).is_ok());
  CHECK_FALSE(tree.exists("nowhere"));
}

TEST_CASE("An opaque directory hides lower content but keeps its own layer's") {
  Tree tree;
  REQUIRE(tree.apply({file("d/old", "1"), file("d/sub/deep", "2"), file("e/old", "3")}).is_ok());
  SECTION("marker first") {
    REQUIRE(tree.apply({dir("d"), file("d/.wh..wh..opq", ""), file("d/new", "n")}).is_ok());
  }
  SECTION("marker after the layer's own entries") {
    REQUIRE(tree.apply({dir("d"), file("d/new", "n"), file("d/.wh..wh..opq", "")}).is_ok());
  }
  CHECK(tree.read("d/new") == "n");
  CHECK_FALSE(tree.exists("d/old"));
  CHECK_FALSE(tree.exists("d/sub"));
  CHECK_FALSE(tree.exists("d/.wh..wh..opq"));
  CHECK(tree.read("e/old") == "3");
}

TEST_CASE("A later layer replaces a file by a directory and a directory by a file") {
  Tree tree;
  REQUIRE(tree.apply({file("x", "file"), file("y/inner", "i")}).is_ok());
  REQUIRE(tree.apply({dir("x"), file("x/in", "1"), file("y", "now a file")}).is_ok());
  CHECK(tree.read("x/in") == "1");
  CHECK(tree.read("y") == "now a file");
}

TEST_CASE("No entry escapes the tree") {
  Tree tree;
  SECTION("a ../ path is refused") {
    auto applied = tree.apply({file("../outside/victim", "pwned")});
    REQUIRE_FALSE(applied.is_ok());
    CHECK_THAT(applied.status().message(), Catch::Contains("climbs out"));
    auto nested = tree.apply({file("a/../../outside/new", "pwned")});
    CHECK_FALSE(nested.is_ok());
  }
  SECTION("an absolute path lands inside") {
    REQUIRE(tree.apply({file(tree.outside() + "/victim", "inside")}).is_ok());
    CHECK(tree.read(tree.outside().substr(1) + "/victim") == "inside");
  }
  SECTION("an absolute symlink is followed inside the tree only") {
    REQUIRE(tree.apply({symlink("abs", tree.outside()), file("abs/victim", "pwned"),
                        file("abs/new", "n")})
                .is_ok());
    CHECK(tree.read(tree.outside().substr(1) + "/new") == "n");
  }
  SECTION("a relative symlink climbing with .. stops at the root") {
    REQUIRE(tree.apply({symlink("up", "../../../../outside"), file("up/victim", "pwned")}).is_ok());
    CHECK(tree.read("outside/victim") == "pwned");
  }
  SECTION("a symlinked parent from a lower layer is resolved inside") {
    REQUIRE(tree.apply({symlink("p", tree.outside())}).is_ok());
    REQUIRE(tree.apply({file("p/victim", "pwned"), file("p/.wh.victim", "")}).is_ok());
    REQUIRE(tree.apply({dir("p"), file("p/.wh..wh..opq", "")}).is_ok());
  }
  SECTION("a whiteout or opaque marker under a symlink does not reach out") {
    REQUIRE(tree.apply({symlink("p", tree.outside())}).is_ok());
    REQUIRE(tree.apply({file("p/.wh.victim", "")}).is_ok());
    REQUIRE(tree.apply({file("p/.wh..wh..opq", "")}).is_ok());
  }
  SECTION("a file over a symlink replaces the link, never writes through it") {
    REQUIRE(tree.apply({symlink("f", tree.outside() + "/victim")}).is_ok());
    REQUIRE(tree.apply({file("f", "replaced")}).is_ok());
    CHECK(S_ISREG(tree.stat_of("f").st_mode));
    CHECK(tree.read("f") == "replaced");
  }
  SECTION("hard links out of the tree are refused") {
    auto climbing = tree.apply({hardlink("h", "../outside/victim")});
    CHECK_FALSE(climbing.is_ok());
    auto absolute = tree.apply({hardlink("h", tree.outside() + "/victim")});
    REQUIRE_FALSE(absolute.is_ok());  // resolved inside the tree, where it does not exist
    CHECK_THAT(absolute.status().message(), Catch::Contains("hard link to missing"));
    auto via_symlink = tree.apply({symlink("s", tree.outside()), hardlink("h", "s/victim")});
    CHECK_FALSE(via_symlink.is_ok());
    CHECK_FALSE(tree.exists("h"));
  }
  CHECK(tree.outside_untouched());
}

TEST_CASE("A layer file that does not hash to its digest is reported corrupt") {
  TempDir dir;
  const std::string tar = make_tar({file("a", "1")}, Compression::kNone);
  const std::string path = dir.path() + "/layer";
  std::ofstream(path, std::ios::binary) << tar;
  mkdir((dir.path() + "/root").c_str(), 0755);
  const int root = open((dir.path() + "/root").c_str(), O_RDONLY | O_DIRECTORY);
  auto applied = apply_layer(root, path, sha256_of("something else"));
  close(root);
  REQUIRE_FALSE(applied.is_ok());
  CHECK(applied.status().code() == Code::kCorrupt);
}

TEST_CASE("A truncated layer is an error") {
  TempDir dir;
  std::string tar = make_tar({file("a", std::string(10000, 'x'))}, Compression::kGzip);
  tar.resize(tar.size() / 2);
  const std::string path = dir.path() + "/layer";
  std::ofstream(path, std::ios::binary) << tar;
  mkdir((dir.path() + "/root").c_str(), 0755);
  const int root = open((dir.path() + "/root").c_str(), O_RDONLY | O_DIRECTORY);
  auto applied = apply_layer(root, path, sha256_of(tar));
  close(root);
  CHECK_FALSE(applied.is_ok());
}

}  // namespace
}  // namespace k3c::runtime::internal

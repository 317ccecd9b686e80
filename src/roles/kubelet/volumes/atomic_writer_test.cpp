// The atomic writer: ..data swaps, visible symlinks, modes, removed keys, bad paths.
#include "roles/kubelet/volumes/atomic_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace k3c::kubelet::volumes {
namespace {

namespace fs = std::filesystem;

std::string writer_read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int mode(const std::string& path) {
  struct stat st {};
  stat(path.c_str(), &st);
  return st.st_mode & 07777;
}

TEST_CASE("files swap in through ..data") {
  char tmpl[] = "/tmp/k3c-atomic-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  Payload first = {{"a.txt", {"one", 0644}}, {"sub/b.txt", {"two", 0400}}};
  auto w = write_atomic(dir, first, "t1");
  REQUIRE(w.is_ok());
  CHECK(*w);
  CHECK(fs::is_symlink(dir + "/..data"));
  CHECK(fs::read_symlink(dir + "/..data") == "..t1");
  CHECK(fs::is_symlink(dir + "/a.txt"));
  CHECK(fs::read_symlink(dir + "/a.txt") == "..data/a.txt");
  CHECK(writer_read(dir + "/a.txt") == "one");
  CHECK(writer_read(dir + "/sub/b.txt") == "two");
  CHECK(mode(dir + "/sub/b.txt") == 0400);

  auto same = write_atomic(dir, first, "t2");
  REQUIRE(same.is_ok());
  CHECK_FALSE(*same);
  CHECK(fs::read_symlink(dir + "/..data") == "..t1");

  Payload second = {{"a.txt", {"uno", 0644}}, {"c.txt", {"three", 0644}}};
  REQUIRE(write_atomic(dir, second, "t3").is_ok());
  CHECK(writer_read(dir + "/a.txt") == "uno");
  CHECK(writer_read(dir + "/c.txt") == "three");
  CHECK_FALSE(fs::exists(dir + "/sub"));
  CHECK_FALSE(fs::exists(dir + "/..t1"));
  CHECK(fs::exists(dir + "/..t3"));

  CHECK(write_atomic(dir, {{"../x", {"", 0644}}}, "t4").status().code() == Code::kInvalid);
  CHECK(write_atomic(dir, {{"/x", {"", 0644}}}, "t4").status().code() == Code::kInvalid);
  CHECK(write_atomic(dir, {{"..x", {"", 0644}}}, "t4").status().code() == Code::kInvalid);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace k3c::kubelet::volumes

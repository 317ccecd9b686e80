// Volume paths, subPath containment and hostPath type checks over a temporary directory.
#include "roles/kubelet/volumes/volume_paths.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace k3c::kubelet::volumes {
namespace {

namespace fs = std::filesystem;

struct PathsTempDir {
  PathsTempDir() {
    char tmpl[] = "/tmp/k3c-volumes-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~PathsTempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

TEST_CASE("volume directories follow upstream's plugin layout") {
  CHECK(volume_dir("/d/agent", "u1", "emptyDir", "cache") ==
        "/d/agent/pods/u1/volumes/kubernetes.io~empty-dir/cache");
  CHECK(plugin_dir_name("configMap") == "kubernetes.io~configmap");
  CHECK(plugin_dir_name("secret") == "kubernetes.io~secret");
  CHECK(plugin_dir_name("downwardAPI") == "kubernetes.io~downward-api");
  CHECK(plugin_dir_name("projected") == "kubernetes.io~projected");
  CHECK(plugin_dir_name("hostPath").empty());
}

TEST_CASE("a subPath stays inside its volume") {
  PathsTempDir t;
  const std::string base = t.path + "/vol";
  fs::create_directories(base + "/a");
  fs::create_directories(t.path + "/outside");
  fs::create_directory_symlink(t.path + "/outside", base + "/escape");
  fs::create_directory_symlink("a", base + "/inner");
  const std::string real = fs::canonical(base).string();

  auto a = resolve_sub_path(base, "a");
  REQUIRE(a.is_ok());
  CHECK(*a == real + "/a");
  auto made = resolve_sub_path(base, "new/dir");  // created, as upstream does
  REQUIRE(made.is_ok());
  CHECK(fs::is_directory(*made));
  auto inner = resolve_sub_path(base, "inner");
  REQUIRE(inner.is_ok());
  CHECK(*inner == real + "/a");

  CHECK(resolve_sub_path(base, "../x").status().code() == Code::kInvalid);
  CHECK(resolve_sub_path(base, "/etc").status().code() == Code::kInvalid);
  auto escape = resolve_sub_path(base, "escape");
  CHECK(escape.status().code() == Code::kInvalid);
  CHECK_THAT(escape.status().message(), Catch::Contains("not within volume path"));
  CHECK(resolve_sub_path(base, "escape/deeper").status().code() == Code::kInvalid);
  CHECK(!fs::exists(t.path + "/outside/deeper"));
}

TEST_CASE("hostPath type checks with upstream's messages") {
  PathsTempDir t;
  const std::string dir = t.path + "/d", file = t.path + "/f";
  fs::create_directory(dir);
  std::ofstream(file) << "x";
  CHECK(check_host_path_type(t.path + "/missing", "").is_ok());
  CHECK(check_host_path_type(dir, "Directory").is_ok());
  CHECK(check_host_path_type(file, "Directory").message() ==
        "hostPath type check failed: " + file + " is not a directory");
  CHECK(check_host_path_type(t.path + "/none", "Directory").code() == Code::kInvalid);
  CHECK(check_host_path_type(file, "File").is_ok());
  CHECK(check_host_path_type(dir, "File").message() ==
        "hostPath type check failed: " + dir + " is not a file");
  CHECK(check_host_path_type(file, "Socket").code() == Code::kInvalid);
  CHECK(check_host_path_type(file, "CharDevice").code() == Code::kInvalid);
  CHECK(check_host_path_type("/dev/null", "CharDevice").is_ok());
  CHECK(check_host_path_type(file, "BlockDevice").code() == Code::kInvalid);
  CHECK(check_host_path_type(file, "Bogus").code() == Code::kInvalid);

  REQUIRE(check_host_path_type(t.path + "/new/sub", "DirectoryOrCreate").is_ok());
  CHECK(fs::is_directory(t.path + "/new/sub"));
  CHECK(check_host_path_type(file, "DirectoryOrCreate").code() == Code::kInvalid);
  REQUIRE(check_host_path_type(t.path + "/p/q.txt", "FileOrCreate").is_ok());
  CHECK(fs::is_regular_file(t.path + "/p/q.txt"));
  CHECK(check_host_path_type(dir, "FileOrCreate").code() == Code::kInvalid);

  const std::string sock = t.path + "/s.sock";
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  CHECK(check_host_path_type(sock, "Socket").is_ok());
  close(fd);
}

}  // namespace
}  // namespace k3c::kubelet::volumes

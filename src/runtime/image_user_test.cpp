// Resolving USER / runAsUser inside an image's root, as runc and containerd do.
#include "runtime/image_user.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "temp_dir.h"

namespace k3c::runtime {

TEST_CASE("image users: numbers, names, groups and the image's group memberships") {
  TempDir root;
  std::filesystem::create_directories(root.path() + "/etc");
  std::ofstream(root.path() + "/etc/passwd") << "root:x:0:0:root:/root:/bin/sh\n"
                                                "# a comment\n"
                                                "www:x:33:33:www:/var/www:/bin/false\n"
                                                "app:x:1000:1001::/home/app:/bin/sh\n";
  std::ofstream(root.path() + "/etc/group") << "root:x:0:\n"
                                               "www:x:33:\n"
                                               "app:x:1001:\n"
                                               "video:x:44:app,www\n"
                                               "audio:x:29:app\n";
  const auto user = [&](const std::string& spec) { return resolve_image_user(root.path(), spec); };
  auto r = user("");
  REQUIRE(r.is_ok());
  CHECK(r->uid == 0);
  CHECK(r->gid == 0);
  CHECK(r->groups == std::vector<uint32_t>{0});

  r = user("app");
  REQUIRE(r.is_ok());
  CHECK(r->uid == 1000);
  CHECK(r->gid == 1001);
  CHECK(r->groups == std::vector<uint32_t>{1001, 44, 29});

  r = user("1000");  // a number that has a passwd entry takes its group and memberships
  REQUIRE(r.is_ok());
  CHECK(r->gid == 1001);
  CHECK(r->groups == std::vector<uint32_t>{1001, 44, 29});

  r = user("www:video");
  REQUIRE(r.is_ok());
  CHECK(r->uid == 33);
  CHECK(r->gid == 44);
  CHECK(r->groups == std::vector<uint32_t>{44});

  r = user("4242:77");  // unknown numbers are fine
  REQUIRE(r.is_ok());
  CHECK(r->uid == 4242);
  CHECK(r->gid == 77);
  CHECK(r->groups == std::vector<uint32_t>{77});

  auto bad = user("nobody");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().code() == Code::kInvalid);
  CHECK(bad.status().message() == "unable to find user nobody: no matching entries in passwd file");
  bad = user("app:staff");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() == "unable to find group staff: no matching entries in group file");
}

TEST_CASE("image users: /etc/passwd is read inside the root, never through a link out") {
  TempDir root, outside;
  std::filesystem::create_directories(root.path() + "/etc");
  std::ofstream(outside.path() + "/passwd") << "evil:x:0:0::/:/bin/sh\n";
  std::filesystem::create_symlink(outside.path() + "/passwd", root.path() + "/etc/passwd");
  auto r = resolve_image_user(root.path(), "evil");
  REQUIRE_FALSE(r.is_ok());  // the link resolves inside the root, where there is no such file
  r = resolve_image_user(root.path(), "5");  // no passwd at all: numbers still work
  REQUIRE(r.is_ok());
  CHECK(r->uid == 5);
  CHECK(r->gid == 0);
}

}  // namespace k3c::runtime

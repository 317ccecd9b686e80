// The pure parts of a container's identity: user/group resolution and the capability set.
#include <catch2/catch.hpp>
#include <csignal>

#include "runtime/linux/capabilities.h"
#include "runtime/linux/stop_signal.h"
#include "runtime/linux/user_lookup.h"

namespace k3c::runtime {
namespace {

constexpr std::string_view kPasswd =
    "root:x:0:0:root:/root:/bin/sh\n"
    "# a comment\n"
    "broken line\n"
    "www:x:33:33:www:/var/www:/bin/false\n"
    "app:x:1000:1000::/home/app:/bin/sh\r\n";
constexpr std::string_view kGroup =
    "root:x:0:\n"
    "www:x:33:\n"
    "video:x:44:app,www\n"
    "audio:x:29:app\n"
    "staff:x:50:\n";

UserRequest user(std::string image_user, std::optional<int64_t> run_as_user = {},
                 std::optional<int64_t> run_as_group = {}, std::vector<int64_t> groups = {}) {
  return UserRequest{std::move(image_user), run_as_user, run_as_group, std::move(groups)};
}

SecurityConfig security(std::vector<std::string> add, std::vector<std::string> drop,
                        bool privileged = false) {
  SecurityConfig config;
  config.add_capabilities = std::move(add);
  config.drop_capabilities = std::move(drop);
  config.privileged = privileged;
  return config;
}

UserIdentity resolved(UserRequest request) {
  auto identity = resolve_user(request, kPasswd, kGroup);
  REQUIRE(identity.is_ok());
  return *identity;
}

TEST_CASE("image USER spellings resolve against the container's passwd and group") {
  CHECK(resolved(user("")).uid == 0);
  CHECK(resolved(user("")).gid == 0);
  UserIdentity app = resolved(user("app"));
  CHECK(app.uid == 1000);
  CHECK(app.gid == 1000);
  CHECK(app.additional_gids == std::vector<uint32_t>{44, 29});
  CHECK(resolved(user("33")).gid == 33);
  CHECK(resolved(user("4242")).gid == 0);  // no entry: group 0, as containerd
  CHECK(resolved(user("app:staff")).gid == 50);
  CHECK(resolved(user("www:7")).gid == 7);
  auto missing = resolve_user(user("nobody"), kPasswd, kGroup);
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message() ==
        "unable to find user nobody: no matching entries in passwd file");
  auto no_group = resolve_user(user("app:wheel"), kPasswd, kGroup);
  REQUIRE_FALSE(no_group.is_ok());
  CHECK(no_group.status().message() ==
        "unable to find group wheel: no matching entries in group file");
}

TEST_CASE("runAsUser replaces the image USER; runAsGroup and supplemental groups apply last") {
  UserIdentity www = resolved(user("app:staff", 33));
  CHECK(www.uid == 33);
  CHECK(www.gid == 33);
  CHECK(www.additional_gids == std::vector<uint32_t>{44});
  UserIdentity grouped = resolved(user("app", {}, 9, {44, 77}));
  CHECK(grouped.gid == 9);
  CHECK(grouped.additional_gids == std::vector<uint32_t>{44, 29, 77});
  CHECK_FALSE(resolve_user(user("", -1), kPasswd, kGroup).is_ok());
  CHECK_FALSE(resolve_user(user("", {}, {}, {1LL << 40}), kPasswd, kGroup).is_ok());
}

TEST_CASE("capability sets follow containerd: default, privileged, ALL, add then drop") {
  auto caps = [](const SecurityConfig& config) {
    auto result = container_capabilities(config);
    REQUIRE(result.is_ok());
    return *result;
  };
  CHECK(caps(security({}, {})).size() == 14);
  CHECK(caps(security({"CHOWN"}, {"ALL"}, true)) == std::vector<std::string>{"ALL"});
  CHECK(caps(security({"ALL"}, {})) == std::vector<std::string>{"ALL"});
  std::vector<std::string> only_net = caps(security({"net_admin"}, {"ALL"}));
  CHECK(only_net == std::vector<std::string>{"CAP_NET_ADMIN"});
  std::vector<std::string> all_but_chown = caps(security({"ALL"}, {"CAP_CHOWN"}));
  CHECK(all_but_chown.size() == all_capabilities().size() - 1);
  CHECK(all_but_chown.front() == "CAP_DAC_OVERRIDE");
  auto unknown = container_capabilities(security({"FLY"}, {}));
  REQUIRE_FALSE(unknown.is_ok());
  CHECK(unknown.status().message() == "unknown capability \"FLY\"");
  CHECK(capability_number("CAP_SYS_ADMIN") == 21);
  CHECK(capability_number("checkpoint_restore") == 40);
}

TEST_CASE("STOPSIGNAL spellings") {
  CHECK(signal_number("SIGTERM") == 15);
  CHECK(signal_number("QUIT") == 3);
  CHECK(signal_number("9") == 9);
  CHECK(signal_number("SIGRTMIN+3") == SIGRTMIN + 3);
  CHECK_FALSE(signal_number("").has_value());
  CHECK_FALSE(signal_number("SIGNOPE").has_value());
  CHECK_FALSE(signal_number("0").has_value());
  CHECK_FALSE(signal_number("SIGRTMAX+1").has_value());
}

}  // namespace
}  // namespace k3c::runtime

// The container argv rules: command/args against the image's entrypoint/cmd.
#include "roles/kubelet/pods/command.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using Argv = std::vector<std::string>;

const Argv kEntrypoint = {"/entry", "-e"};
const Argv kCmd = {"/cmd", "-c"};

Argv argv(const json& container, const Argv& entrypoint = kEntrypoint, const Argv& cmd = kCmd,
          const std::map<std::string, std::string>& env = {}) {
  auto r = container_argv(container, entrypoint, cmd, env);
  REQUIRE(r.is_ok());
  return *r;
}

TEST_CASE("command replaces entrypoint and cmd; args alone replace cmd") {
  CHECK(argv({{"name", "c"}}) == Argv{"/entry", "-e", "/cmd", "-c"});
  CHECK(argv({{"args", {"a", "b"}}}) == Argv{"/entry", "-e", "a", "b"});
  CHECK(argv({{"command", {"/bin/sh"}}}) == Argv{"/bin/sh"});  // the image cmd is dropped
  CHECK(argv({{"command", {"/bin/sh"}}, {"args", {"-c", "x"}}}) == Argv{"/bin/sh", "-c", "x"});
  // An image without an entrypoint runs its cmd, or the args.
  CHECK(argv({}, {}, kCmd) == Argv{"/cmd", "-c"});
  CHECK(argv({{"args", {"/bin/true"}}}, {}, kCmd) == Argv{"/bin/true"});
  // ENTRYPOINT [""] resets the entrypoint.
  CHECK(argv({}, {""}, kCmd) == Argv{"/cmd", "-c"});
}

TEST_CASE("nothing to run is an error") {
  auto r = container_argv(json::object(), {}, {}, {});
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() == "no command specified");
}

TEST_CASE("command and args expand $(VAR) from the declared environment") {
  const std::map<std::string, std::string> env = {{"GREETING", "hi"}, {"PORT", "80"}};
  CHECK(
      argv({{"command", {"echo", "$(GREETING)"}}, {"args", {"-p=$(PORT)", "$$(PORT)", "$(NOPE)"}}},
           kEntrypoint, kCmd, env) == Argv{"echo", "hi", "-p=80", "$(PORT)", "$(NOPE)"});
  // The image's own entrypoint and cmd are not expanded.
  CHECK(argv({}, {"$(GREETING)"}, {}, env) == Argv{"$(GREETING)"});
}

}  // namespace
}  // namespace k3c::kubelet

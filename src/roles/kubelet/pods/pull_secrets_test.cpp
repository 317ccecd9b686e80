// Registry credentials from imagePullSecrets: key matching and both secret formats.
#include "roles/kubelet/pods/pull_secrets.h"

#include <catch2/catch.hpp>

#include "core/base64.h"
#include "roles/kubelet/pods/testing/map_config_source.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

runtime::Reference ref(const std::string& text) {
  auto r = runtime::parse_reference(text);
  REQUIRE(r.is_ok());
  return *r;
}

std::vector<std::string> users(const std::vector<runtime::RegistryAuth>& auths) {
  std::vector<std::string> out;
  for (const auto& a : auths) out.push_back(a.username + ":" + a.password);
  return out;
}

TEST_CASE("config entries match by registry host and repository path") {
  json config = {{"auths",
                  {{"https://index.docker.io/v1/", {{"auth", base64_encode("hub:pw")}}},
                   {"reg.example:5000", {{"username", "any"}, {"password", "p1"}}},
                   {"reg.example:5000/team", {{"username", "team"}, {"password", "p2"}}},
                   {"other.example", {{"username", "no"}, {"password", "x"}}}}}};
  CHECK(users(matching_auths(config, ref("busybox"))) == std::vector<std::string>{"hub:pw"});
  CHECK(users(matching_auths(config, ref("reg.example:5000/team/app:1"))) ==
        std::vector<std::string>{"team:p2", "any:p1"});  // the most specific first
  CHECK(users(matching_auths(config, ref("reg.example:5000/teams/app"))) ==
        std::vector<std::string>{"any:p1"});
  CHECK(matching_auths(config, ref("quay.io/x/y")).empty());
}

TEST_CASE("pull credentials from dockerconfigjson and dockercfg secrets; missing ones named") {
  testing::MapConfigSource objects;
  json modern = {{"auths", {{"reg.example", {{"auth", base64_encode("a:1")}}}}}};
  json legacy = {{"reg.example", {{"auth", base64_encode("b:2")}}}};
  objects.put_secret("ns", "modern", {{".dockerconfigjson", base64_encode(modern.dump())}});
  objects.put_secret("ns", "legacy", {{".dockercfg", base64_encode(legacy.dump())}});
  json pod = {
      {"metadata", {{"namespace", "ns"}}},
      {"spec",
       {{"imagePullSecrets",
         {{{"name", "modern"}}, {{"name", "gone"}}, {{"name", ""}}, {{"name", "legacy"}}}}}}};
  auto creds = pull_credentials(pod, ref("reg.example/app:1"), objects);
  CHECK(users(creds.auths) == std::vector<std::string>{"a:1", "b:2"});
  CHECK(creds.missing_secrets == std::vector<std::string>{"gone"});
}

}  // namespace
}  // namespace k3c::kubelet

// Volume payloads: keys, items, modes, optional sources, downward API files, tokens.
#include "roles/kubelet/volumes/payloads.h"

#include <catch2/catch.hpp>

#include "core/base64.h"
#include "roles/kubelet/pods/testing/map_config_source.h"

namespace k3c::kubelet::volumes {
namespace {

using nlohmann::json;

const json kPod = {
    {"metadata",
     {{"name", "web"},
      {"namespace", "ns"},
      {"uid", "u1"},
      {"labels", {{"app", "web"}, {"tier", "front"}}}}},
    {"spec",
     {{"serviceAccountName", "robot"},
      {"containers", {{{"name", "c"}, {"resources", {{"limits", {{"memory", "64Mi"}}}}}}}}}}};

TEST_CASE("configMap and secret volumes project keys with modes") {
  testing::MapConfigSource objects;
  objects.put_config_map("ns", "cfg", {{"a", "1"}, {"b", "2"}});
  objects.put_secret("ns", "sec", {{"pw", base64_encode("hunter2")}});
  NodeFacts node;
  PayloadInputs in{kPod, objects, node, nullptr};

  auto all = config_map_payload({{"name", "cfg"}}, 0644, in);
  REQUIRE(all.is_ok());
  CHECK(all->size() == 2);
  CHECK(all->at("a") == FileProjection{"1", 0644});

  auto items = config_map_payload(
      {{"name", "cfg"},
       {"defaultMode", 0400},
       {"items", {{{"key", "b"}, {"path", "x/b"}}, {{"key", "a"}, {"path", "a"}, {"mode", 0600}}}}},
      0644, in);
  REQUIRE(items.is_ok());
  CHECK(items->at("x/b") == FileProjection{"2", 0400});
  CHECK(items->at("a").mode == 0600);

  auto missing = config_map_payload({{"name", "nope"}}, 0644, in);
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK(missing.status().message() == "configmap \"nope\" not found");
  auto optional = config_map_payload({{"name", "nope"}, {"optional", true}}, 0644, in);
  REQUIRE(optional.is_ok());
  CHECK(optional->empty());
  auto bad_key =
      config_map_payload({{"name", "cfg"}, {"items", {{{"key", "z"}, {"path", "z"}}}}}, 0644, in);
  CHECK(bad_key.status().message() == "configmap references non-existent config key: z");

  auto secret = secret_payload({{"secretName", "sec"}}, 0644, in);
  REQUIRE(secret.is_ok());
  CHECK(secret->at("pw").data == "hunter2");
  CHECK(secret_payload({{"secretName", "gone"}}, 0644, in).status().message() ==
        "secret \"gone\" not found");
}

TEST_CASE("downwardAPI files and projected volumes") {
  testing::MapConfigSource objects;
  objects.put_config_map("ns", "kube-root-ca.crt", {{"ca.crt", "PEM"}});
  NodeFacts node;
  node.allocatable["memory"] = "1Gi";
  std::string asked;
  PayloadInputs in{kPod, objects, node,
                   [&](const std::string& ns, const std::string& sa, const std::string& aud,
                       int64_t seconds) -> Result<std::string> {
                     asked = ns + "/" + sa + "/" + aud + "/" + std::to_string(seconds);
                     return std::string("TOKEN");
                   }};
  auto files = downward_api_payload(
      {{{"path", "labels"}, {"fieldRef", {{"fieldPath", "metadata.labels"}}}},
       {{"path", "name"}, {"fieldRef", {{"fieldPath", "metadata.name"}}}, {"mode", 0600}},
       {{"path", "mem"},
        {"resourceFieldRef",
         {{"containerName", "c"}, {"resource", "limits.memory"}, {"divisor", "1Mi"}}}}},
      0644, in);
  REQUIRE(files.is_ok());
  CHECK(files->at("labels").data == "app=\"web\"\ntier=\"front\"");
  CHECK(files->at("name") == FileProjection{"web", 0600});
  CHECK(files->at("mem").data == "64");

  // The kube-api-access volume as ServiceAccount admission writes it.
  const json projected = {
      {"defaultMode", 420},
      {"sources",
       {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
        {{"configMap",
          {{"name", "kube-root-ca.crt"}, {"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
        {{"downwardAPI",
          {{"items",
            {{{"path", "namespace"},
              {"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}}}}}}}}};
  auto access = projected_payload(projected, in);
  REQUIRE(access.is_ok());
  CHECK(access->at("token") == FileProjection{"TOKEN", 0644});
  CHECK(access->at("ca.crt").data == "PEM");
  CHECK(access->at("namespace").data == "ns");
  CHECK(asked == "ns/robot//3607");
}

}  // namespace
}  // namespace k3c::kubelet::volumes

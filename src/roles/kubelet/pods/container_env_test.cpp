// A container's environment: sources, precedence, $(VAR) expansion, downward API values and
// the errors a missing ConfigMap, Secret or key gives.
#include "roles/kubelet/pods/container_env.h"

#include <catch2/catch.hpp>

#include "core/base64.h"
#include "roles/kubelet/pods/field_ref.h"
#include "roles/kubelet/pods/testing/map_config_source.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using Lines = std::vector<std::string>;
using testing::MapConfigSource;

json pod_with(const json& container) {
  return {{"metadata",
           {{"name", "web"},
            {"namespace", "ns"},
            {"uid", "u-1"},
            {"labels", {{"app", "web"}, {"tier", "front"}}},
            {"annotations", {{"note", "a \"b\""}}}}},
          {"spec",
           {{"nodeName", "node-1"}, {"serviceAccountName", "sa"}, {"containers", {container}}}}};
}

NodeFacts node() { return {"node-1", {"10.0.0.5", "fd00::5"}, {{"cpu", "2"}, {"memory", "4Gi"}}}; }

Result<ContainerEnv> env_of(const json& container, MapConfigSource& objects,
                            const Lines& image_env = {}) {
  return container_env(pod_with(container), container, image_env, objects, node(),
                       {"10.42.0.7", "fd42::7"});
}

TEST_CASE("image env first, then envFrom, then env; later entries win in place") {
  MapConfigSource objects;
  objects.put_config_map("ns", "cfg", {{"MODE", "prod"}, {"PATH", "/cfg"}});
  objects.put_secret("ns", "sec", {{"TOKEN", base64_encode("s3cret")}});
  json c = {{"name", "c"},
            {"envFrom",
             {{{"configMapRef", {{"name", "cfg"}}}},
              {{"secretRef", {{"name", "sec"}}}, {"prefix", "S_"}}}},
            {"env",
             {{{"name", "MODE"}, {"value", "dev"}},
              {{"name", "URL"}, {"value", "http://$(MODE)/$(HOME)"}}}}};
  auto r = env_of(c, objects, {"PATH=/usr/bin", "HOME=/root"});
  REQUIRE(r.is_ok());
  CHECK(r->env == Lines{"PATH=/cfg", "HOME=/root", "MODE=dev", "S_TOKEN=s3cret",
                        "URL=http://dev/$(HOME)"});  // image variables are not visible to $(VAR)
  CHECK(r->declared.at("S_TOKEN") == "s3cret");
  CHECK(r->declared.count("HOME") == 0);
  CHECK(r->warnings.empty());
}

TEST_CASE("values expand only what is declared before them") {
  MapConfigSource objects;
  json c = {{"env",
             {{{"name", "A"}, {"value", "$(B)-x"}},
              {{"name", "B"}, {"value", "b"}},
              {{"name", "C"}, {"value", "$(B)-$$(B)-$(A)"}}}}};
  auto r = env_of(c, objects);
  REQUIRE(r.is_ok());
  CHECK(r->env == Lines{"A=$(B)-x", "B=b", "C=b-$(B)-$(B)-x"});
}

TEST_CASE("configMapKeyRef and secretKeyRef, optional and missing") {
  MapConfigSource objects;
  objects.put_config_map("ns", "cfg", {{"k", "v"}});
  auto key_ref = [](const char* kind, const char* name, const char* key, bool optional) {
    json ref = {{"name", name}, {"key", key}};
    if (optional) ref["optional"] = true;
    return json{{"name", "X"}, {"valueFrom", {{kind, ref}}}};
  };
  auto one = [&](const json& entry) { return env_of({{"env", {entry}}}, objects); };

  auto ok = one(key_ref("configMapKeyRef", "cfg", "k", false));
  REQUIRE(ok.is_ok());
  CHECK(ok->env == Lines{"X=v"});

  auto missing_map = one(key_ref("configMapKeyRef", "nope", "k", false));
  REQUIRE_FALSE(missing_map.is_ok());
  CHECK(missing_map.status().message() == "configmap \"nope\" not found");

  auto missing_key = one(key_ref("configMapKeyRef", "cfg", "other", false));
  REQUIRE_FALSE(missing_key.is_ok());
  CHECK(missing_key.status().message() == "couldn't find key other in ConfigMap ns/cfg");

  auto missing_secret = one(key_ref("secretKeyRef", "s", "k", false));
  REQUIRE_FALSE(missing_secret.is_ok());
  CHECK(missing_secret.status().message() == "secret \"s\" not found");

  objects.put_secret("ns", "s", {{"a", base64_encode("b")}});
  auto missing_secret_key = one(key_ref("secretKeyRef", "s", "k", false));
  REQUIRE_FALSE(missing_secret_key.is_ok());
  CHECK(missing_secret_key.status().message() == "couldn't find key k in Secret ns/s");

  // optional: the variable is left out.
  for (auto entry : {key_ref("configMapKeyRef", "nope", "k", true),
                     key_ref("configMapKeyRef", "cfg", "other", true),
                     key_ref("secretKeyRef", "s", "k", true)}) {
    auto r = one(entry);
    REQUIRE(r.is_ok());
    CHECK(r->env.empty());
  }
}

TEST_CASE(
    "envFrom: a missing object fails unless optional; invalid names are skipped with a warning") {
  MapConfigSource objects;
  auto r = env_of({{"envFrom", {{{"configMapRef", {{"name", "gone"}}}}}}}, objects);
  REQUIRE_FALSE(r.is_ok());
  CHECK(r.status().message() == "configmap \"gone\" not found");

  r = env_of({{"envFrom", {{{"secretRef", {{"name", "gone"}, {"optional", true}}}}}}}, objects);
  REQUIRE(r.is_ok());
  CHECK(r->env.empty());

  objects.put_config_map("ns", "odd", {{"ok", "1"}, {"bad\x01key", "2"}});
  r = env_of({{"envFrom", {{{"configMapRef", {{"name", "odd"}}}}}}}, objects);
  REQUIRE(r.is_ok());
  CHECK(r->env == Lines{"ok=1"});
  REQUIRE(r->warnings.size() == 1);
  CHECK(r->warnings[0].reason == "InvalidEnvironmentVariableNames");
  CHECK(r->warnings[0].message ==
        "Keys [bad\x01key] from the EnvFrom configMap ns/odd were skipped since they are "
        "considered invalid environment variable names.");
}

TEST_CASE("fieldRef reads pod metadata, spec and addresses") {
  MapConfigSource objects;
  auto field = [&](const std::string& path) {
    auto r =
        env_of({{"env", {{{"name", "F"}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}}}}},
               objects);
    REQUIRE(r.is_ok());
    REQUIRE(r->env.size() == 1);
    return r->env[0].substr(2);
  };
  CHECK(field("metadata.name") == "web");
  CHECK(field("metadata.namespace") == "ns");
  CHECK(field("metadata.uid") == "u-1");
  CHECK(field("metadata.labels['app']") == "web");
  CHECK(field("metadata.labels['none']") == "");
  CHECK(field("metadata.annotations['note']") == "a \"b\"");
  CHECK(field("spec.nodeName") == "node-1");
  CHECK(field("spec.serviceAccountName") == "sa");
  CHECK(field("status.hostIP") == "10.0.0.5");
  CHECK(field("status.hostIPs") == "10.0.0.5,fd00::5");
  CHECK(field("status.podIP") == "10.42.0.7");
  CHECK(field("status.podIPs") == "10.42.0.7,fd42::7");
  CHECK(field("metadata.labels") == "app=\"web\"\ntier=\"front\"");

  auto bad = env_of(
      {{"env", {{{"name", "F"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.bogus"}}}}}}}}},
      objects);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() == "unsupported fieldPath: spec.bogus");
}

TEST_CASE("resourceFieldRef rounds up to the divisor and falls back to node allocatable") {
  json c = {{"name", "c"},
            {"resources",
             {{"limits", {{"cpu", "250m"}, {"memory", "64Mi"}}},
              {"requests", {{"cpu", "100m"}, {"memory", "32Mi"}}}}}};
  json pod = pod_with(c);
  auto value = [&](const json& container, const std::string& resource, const char* divisor) {
    json sel = {{"resource", resource}};
    if (divisor) sel["divisor"] = divisor;
    auto r = container_resource_value(pod, container, sel, node());
    REQUIRE(r.is_ok());
    return *r;
  };
  CHECK(value(c, "limits.cpu", nullptr) == "1");
  CHECK(value(c, "limits.cpu", "1m") == "250");
  CHECK(value(c, "requests.cpu", "1m") == "100");
  CHECK(value(c, "limits.memory", nullptr) == "67108864");
  CHECK(value(c, "limits.memory", "1Mi") == "64");
  CHECK(value(c, "requests.memory", "1Mi") == "32");
  CHECK(value(c, "requests.memory", "1Gi") == "1");  // rounded up
  json bare = {{"name", "bare"}};
  CHECK(value(bare, "limits.cpu", "1m") == "2000");  // node allocatable
  CHECK(value(bare, "limits.memory", "1Gi") == "4");
  CHECK(value(bare, "requests.cpu", nullptr) == "0");
  // containerName selects another container of the pod.
  auto named = container_resource_value(
      pod, bare, {{"containerName", "c"}, {"resource", "limits.cpu"}, {"divisor", "1m"}}, node());
  REQUIRE(named.is_ok());
  CHECK(*named == "250");
  auto bad = container_resource_value(pod, c, {{"resource", "limits.gpu"}}, node());
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().message() == "unsupported container resource : limits.gpu");
}

}  // namespace
}  // namespace k3c::kubelet

// The ServiceAccount admission plugin over a watch cache of a real store in a temporary
// directory: defaulting, the 403 for a missing account, the retried lookup of `default`,
// the token volume, imagePullSecrets and mirror pods.
#include "roles/apiserver/service_account_admission.h"

#include <catch2/catch.hpp>
#include <thread>

#include "roles/apiserver/object_codec.h"
#include "temp_dir.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json pod(json spec = json::object()) {
  spec["containers"] = {{{"name", "c"}, {"image", "busybox"}}};
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "x"}}}, {"spec", spec}};
}

std::string account(const std::string& name, json extra = json::object()) {
  json sa = {{"apiVersion", "v1"},
             {"kind", "ServiceAccount"},
             {"metadata", {{"name", name}, {"namespace", "default"}}}};
  sa.update(extra);
  return sa.dump();
}

struct Fixture {
  TempDir dir;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<WatchCache> cache;
  // Tests do not wait as long as upstream does.
  ServiceAccountLookup quick{10, 5ms};
  Fixture() {
    store::Options o;
    o.path = dir.path() + "/state.db";
    o.maintenance_interval = 0ms;
    store = std::move(store::open(o)).value();
    cache = std::make_unique<WatchCache>(*store, decode_stored);
    REQUIRE(cache->start().is_ok());
  }
  void create_account(const std::string& name, json extra = json::object()) {
    REQUIRE(
        store->create("/registry/serviceaccounts/default/" + name, account(name, extra)).is_ok());
  }
};

}  // namespace

TEST_CASE("ServiceAccount admission: the account must exist, in upstream's words") {
  Fixture f;
  json p = pod({{"serviceAccountName", "bot"}});
  auto refused = admit_pod_service_account(*f.cache, "default", "x", p, f.quick);
  REQUIRE(refused);
  CHECK(refused->code == Code::kForbidden);
  CHECK(refused->message ==
        "pods \"x\" is forbidden: error looking up service account default/bot: serviceaccount "
        "\"bot\" not found");
  CHECK(refused->name == "x");
  CHECK(refused->kind == "pods");

  // Without an account the pod runs as `default`, which must exist too.
  json unnamed = pod();
  auto no_default = admit_pod_service_account(*f.cache, "default", "web-", unnamed, f.quick);
  REQUIRE(no_default);
  CHECK(no_default->message ==
        "pods \"web-\" is forbidden: error looking up service account default/default: "
        "serviceaccount \"default\" not found");

  f.create_account("bot");
  json admitted = pod({{"serviceAccountName", "bot"}});
  CHECK_FALSE(admit_pod_service_account(*f.cache, "default", "x", admitted, f.quick));
  CHECK(admitted["spec"]["serviceAccount"] == "bot");
  const json& volume = admitted["spec"]["volumes"][0];
  CHECK(volume["name"].get<std::string>().starts_with("kube-api-access-"));
  CHECK(admitted["spec"]["containers"][0]["volumeMounts"][0] ==
        json{{"name", volume["name"]},
             {"readOnly", true},
             {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"}});
}

TEST_CASE("ServiceAccount admission: `default` is waited for, within a bound") {
  Fixture f;
  // The account appears while the plugin is looking for it (as the controller makes it).
  bool created = false;  // no assertions off the test's thread
  std::thread controller([&] {
    std::this_thread::sleep_for(15ms);
    created =
        f.store->create("/registry/serviceaccounts/default/default", account("default")).is_ok();
  });
  json p = pod();
  auto e = admit_pod_service_account(*f.cache, "default", "x", p, ServiceAccountLookup{200, 5ms});
  controller.join();
  CHECK(created);
  CHECK_FALSE(e);
  CHECK(p["spec"]["serviceAccountName"] == "default");

  // Any other account is looked up once: no waiting for it.
  json bot = pod({{"serviceAccountName", "bot"}});
  auto start = std::chrono::steady_clock::now();
  CHECK(admit_pod_service_account(*f.cache, "default", "x", bot, ServiceAccountLookup{10, 1s}));
  CHECK(std::chrono::steady_clock::now() - start < 1s);
}

TEST_CASE("ServiceAccount admission: automount settings and the account's imagePullSecrets") {
  Fixture f;
  f.create_account("quiet", {{"automountServiceAccountToken", false},
                             {"imagePullSecrets", {{{"name", "registry"}}}}});
  json p = pod({{"serviceAccountName", "quiet"}});
  REQUIRE_FALSE(admit_pod_service_account(*f.cache, "default", "x", p, f.quick));
  CHECK_FALSE(p["spec"].contains("volumes"));
  CHECK(p["spec"]["imagePullSecrets"] == json{{{"name", "registry"}}});

  // The pod's own setting and pull secrets win.
  json own = pod({{"serviceAccountName", "quiet"},
                  {"automountServiceAccountToken", true},
                  {"imagePullSecrets", {{{"name", "mine"}}}}});
  REQUIRE_FALSE(admit_pod_service_account(*f.cache, "default", "x", own, f.quick));
  CHECK(own["spec"]["volumes"].size() == 1);
  CHECK(own["spec"]["imagePullSecrets"] == json{{{"name", "mine"}}});
}

TEST_CASE("ServiceAccount admission: mirror pods are left alone, without accounts or secrets") {
  Fixture f;  // no account at all
  json mirror = pod();
  mirror["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  const json before = mirror;
  CHECK_FALSE(admit_pod_service_account(*f.cache, "default", "x", mirror, f.quick));
  CHECK(mirror == before);

  struct Row {
    json spec;
    std::string reason;
  };
  std::vector<Row> rows = {
      {{{"serviceAccountName", "bot"}}, "a mirror pod may not reference service accounts"},
      {{{"volumes", {{{"name", "s"}, {"secret", {{"secretName", "s"}}}}}}},
       "a mirror pod may not reference secrets"},
      {{{"imagePullSecrets", {{{"name", "r"}}}}}, "a mirror pod may not reference secrets"},
      {{{"volumes",
         {{{"name", "t"},
           {"projected", {{"sources", {{{"serviceAccountToken", {{"path", "token"}}}}}}}}}}}},
       "a mirror pod may not use ServiceAccountToken volume projections"},
  };
  for (const auto& row : rows) {
    json p = pod(row.spec);
    p["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
    auto e = admit_pod_service_account(*f.cache, "kube-system", "x", p, f.quick);
    REQUIRE(e);
    CHECK(e->message == "pods \"x\" is forbidden: " + row.reason);
  }
  json env_secret = pod();
  env_secret["spec"]["containers"][0]["env"] = {
      {{"name", "K"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "k"}}}}}}};
  env_secret["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  CHECK(admit_pod_service_account(*f.cache, "default", "x", env_secret, f.quick));
}

}  // namespace k3c::apiserver

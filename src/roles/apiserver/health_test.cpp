// The health endpoints' answers, as upstream's healthz package gives them.
#include "roles/apiserver/health.h"

#include <catch2/catch.hpp>

namespace k3c::apiserver {
namespace {

http::Request health_get(std::string path,
                         std::vector<std::pair<std::string, std::string>> query = {}) {
  http::Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

TEST_CASE("health endpoints run real checks and say which failed") {
  HealthChecks health;
  bool store_ok = true;
  health.add("ping", [] { return Status::ok(); });
  health.add("etcd",
             [&] { return store_ok ? Status::ok() : error(Code::kCorrupt, "disk I/O error"); });
  health.add(
      "shutdown", [] { return Status::ok(); }, /*readyz_only=*/true);

  CHECK_FALSE(health.serve(health_get("/version")));
  auto ok = health.serve(health_get("/healthz"));
  REQUIRE(ok);
  CHECK(ok->status == 200);
  CHECK(ok->body == "ok");
  CHECK(health.serve(health_get("/readyz", {{"verbose", ""}}))->body ==
        "[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n");
  CHECK(health.serve(health_get("/livez", {{"verbose", ""}}))->body ==
        "[+]ping ok\n[+]etcd ok\nlivez check passed\n");
  CHECK(health.serve(health_get("/livez/shutdown"))->status == 404);
  CHECK(health.serve(health_get("/healthz/nope"))->status == 404);

  store_ok = false;
  auto failed = health.serve(health_get("/readyz"));
  CHECK(failed->status == 500);
  CHECK(failed->body ==
        "[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n");
  auto alone = health.serve(health_get("/healthz/etcd"));
  CHECK(alone->status == 500);
  CHECK(alone->body == "internal server error: disk I/O error\n");
  auto excluded = health.serve(health_get("/healthz", {{"exclude", "etcd"}, {"verbose", ""}}));
  CHECK(excluded->status == 200);
  CHECK(excluded->body == "[+]ping ok\n[+]etcd excluded: ok\nhealthz check passed\n");
}

}  // namespace
}  // namespace k3c::apiserver

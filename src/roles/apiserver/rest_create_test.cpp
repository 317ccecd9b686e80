// Rest::create over a real store and watch cache in a temporary directory: what a taken name
// gets.
#include <catch2/catch.hpp>
#include <thread>

#include "core/clock.h"
#include "core/ids.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/request_info.h"
#include "roles/apiserver/rest.h"
#include "temp_dir.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

struct RestFixture {
  TempDir dir;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<WatchCache> cache;
  std::unique_ptr<Strategies> strategies;
  SystemClock clock;
  std::shared_ptr<const api::ResourceRegistry> registry =
      std::make_shared<api::ResourceRegistry>(api::ResourceRegistry::builtin().value());
  std::unique_ptr<Rest> rest;
  const api::Resource& configmaps = *registry->find("", "v1", "configmaps");

  // `namespace_lag`: how long the watch cache takes to decode a Namespace, so that a test can
  // write one to the store and find the cache behind it.
  // `store_clock`: the store's clock (leases), the system's when null.
  explicit RestFixture(std::chrono::milliseconds namespace_lag = std::chrono::milliseconds(0),
                       const Clock* store_clock = nullptr) {
    store::Options o;
    o.path = dir.path() + "/state.db";
    o.maintenance_interval = std::chrono::milliseconds(0);
    o.clock = store_clock;
    store = std::move(store::open(o)).value();
    cache = std::make_unique<WatchCache>(*store, [namespace_lag](const store::KeyValue& kv) {
      if (kv.key.starts_with("/registry/namespaces/")) std::this_thread::sleep_for(namespace_lag);
      return decode_stored(kv);
    });
    REQUIRE(cache->start().is_ok());
    strategies = std::make_unique<Strategies>(*cache, ClusterNetworks{});
    rest = std::make_unique<Rest>(
        *store, *cache, *strategies, clock,
        std::make_shared<api::SchemaSet>(api::SchemaSet::builtin().value()), registry);
    REQUIRE(
        rest->ensure(
                *registry->find("", "v1", "namespaces"), "",
                {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "default"}}}})
            .is_ok());
  }

  // A create of a core/v1 object, `plural` in `ns`.
  http::Response create(const std::string& plural, const json& object,
                        const std::string& ns = "default") {
    http::Request request;
    request.method = "POST";
    request.target = request.path = "/api/v1/namespaces/" + ns + "/" + plural;
    request.headers = {{"content-type", "application/json"}};
    request.body = object.dump();
    RequestInfo info = parse_request_info(request).value();
    return rest->create(Call{info, *registry->find("", "v1", plural), request});
  }

  http::Response create_configmap(const json& metadata, const std::string& ns = "default") {
    return create("configmaps",
                  {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}}, ns);
  }

  // A PATCH of `target` (a core/v1 path) with the resource `plural`.
  http::Response patch(const std::string& plural, const std::string& target,
                       const std::string& type, const std::string& body) {
    http::Request request;
    request.method = "PATCH";
    request.target = target;
    const size_t query = target.find('?');
    request.path = target.substr(0, query);
    // name=value pairs joined by '&' (no escapes in the tests' queries)
    for (size_t at = query; at != std::string::npos && at + 1 < target.size();) {
      const size_t end = target.find('&', at + 1);
      const std::string pair = target.substr(at + 1, end == std::string::npos ? end : end - at - 1);
      request.query.emplace_back(pair.substr(0, pair.find('=')), pair.substr(pair.find('=') + 1));
      at = end;
    }
    request.headers = {{"content-type", type}};
    request.body = body;
    RequestInfo info = parse_request_info(request).value();
    return rest->patch(Call{info, *registry->find("", "v1", plural), request});
  }

  http::Response patch_configmap(const std::string& name, const std::string& type,
                                 const std::string& body) {
    http::Request request;
    request.method = "PATCH";
    request.target = request.path = "/api/v1/namespaces/default/configmaps/" + name;
    request.headers = {{"content-type", type}};
    request.body = body;
    RequestInfo info = parse_request_info(request).value();
    return rest->patch(Call{info, configmaps, request});
  }
};

}  // namespace

TEST_CASE("a generated name that is taken is generated again; a given one is a 409") {
  RestFixture f;
  // The suffix the next generateName gets, taken first by a name of its own.
  seed_this_thread_for_tests(42);
  const std::string taken = "cm-" + random_name_suffix();
  REQUIRE(f.create_configmap({{"name", taken}}).status == 201);

  seed_this_thread_for_tests(42);
  http::Response generated = f.create_configmap({{"generateName", "cm-"}});
  REQUIRE(generated.status == 201);
  const std::string name = json::parse(generated.body)["metadata"]["name"];
  CHECK(name != taken);
  CHECK(name.starts_with("cm-"));
  CHECK(name.size() == taken.size());
  // Both are stored.
  CHECK(f.store->get("/registry/configmaps/default/" + taken).is_ok());
  CHECK(f.store->get("/registry/configmaps/default/" + name).is_ok());

  // A name the client chose is not changed: it is taken.
  http::Response again = f.create_configmap({{"name", taken}});
  CHECK(again.status == 409);
  CHECK(json::parse(again.body)["reason"] == "AlreadyExists");
}

TEST_CASE("a create right after its namespace was stored is not refused as in a missing one") {
  // The cache takes 300 ms to see each namespace written straight into the store (the write
  // path benchmark, with both cores busy, met such a lag).
  RestFixture f(std::chrono::milliseconds(300));
  for (int i = 0; i < 2; ++i) {
    const std::string ns = "fresh-" + std::to_string(i);
    REQUIRE(f.store
                ->create("/registry/namespaces/" + ns,
                         json{{"apiVersion", "v1"},
                              {"kind", "Namespace"},
                              {"metadata", {{"name", ns}, {"uid", "u-" + ns}}}}
                             .dump())
                .is_ok());
    http::Response r = f.create_configmap({{"name", "cm"}}, ns);
    CHECK(r.status == 201);
  }
  // A namespace that does not exist still refuses.
  http::Response missing = f.create_configmap({{"name", "cm"}}, "missing");
  CHECK(missing.status == 404);
  CHECK(json::parse(missing.body)["message"] == "namespaces \"missing\" not found");
}

TEST_CASE(
    "a patch sees the stored resourceVersion: a JSON patch may test it, a merge patch pins it") {
  RestFixture f;
  http::Response made = f.create_configmap({{"name", "cm"}});
  REQUIRE(made.status == 201);
  const std::string rv = json::parse(made.body)["metadata"]["resourceVersion"];
  // A JSON patch's test of the current resourceVersion passes, a stale one fails.
  http::Response tested =
      f.patch_configmap("cm", "application/json-patch+json",
                        R"([{"op":"test","path":"/metadata/resourceVersion","value":")" + rv +
                            R"("},{"op":"add","path":"/data","value":{"a":"1"}}])");
  REQUIRE(tested.status == 200);
  const json after = json::parse(tested.body);
  CHECK(after["data"]["a"] == "1");
  const std::string rv2 = after["metadata"]["resourceVersion"];
  CHECK(rv2 != rv);
  http::Response stale =
      f.patch_configmap("cm", "application/json-patch+json",
                        R"([{"op":"test","path":"/metadata/resourceVersion","value":")" + rv +
                            R"("},{"op":"add","path":"/data/b","value":"2"}])");
  CHECK(stale.status != 200);
  // A merge patch naming a resourceVersion is a precondition on it.
  http::Response pinned =
      f.patch_configmap("cm", "application/merge-patch+json",
                        R"({"metadata":{"resourceVersion":")" + rv + R"("},"data":{"c":"3"}})");
  CHECK(pinned.status == 409);
  http::Response current =
      f.patch_configmap("cm", "application/merge-patch+json",
                        R"({"metadata":{"resourceVersion":")" + rv2 + R"("},"data":{"c":"3"}})");
  CHECK(current.status == 200);
  // Neither refused patch changed the object.
  const json stored = json::parse(f.store->get("/registry/configmaps/default/cm")->value);
  CHECK(stored["data"] == json{{"a", "1"}, {"c", "3"}});
  CHECK_FALSE(stored["metadata"].contains("resourceVersion"));
}

TEST_CASE("a create's managedFields hold what its writer sent and the defaults, not admission's") {
  RestFixture f;
  REQUIRE(f.rest
              ->ensure(*f.registry->find("", "v1", "serviceaccounts"), "default",
                       {{"apiVersion", "v1"},
                        {"kind", "ServiceAccount"},
                        {"metadata", {{"name", "default"}, {"namespace", "default"}}}})
              .is_ok());
  http::Response made =
      f.create("pods", json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
                              "spec":{"containers":[{"name":"c","image":"busybox"}]}})"));
  REQUIRE(made.status == 201);
  const json pod = json::parse(made.body);
  // Admission added the token volume and the default tolerations ...
  REQUIRE(pod["spec"]["volumes"].size() == 1);
  REQUIRE(pod["spec"]["tolerations"].size() == 2);
  // ... which belong to no manager, as upstream records fields before mutating admission;
  // the defaults decoding applies are the writer's.
  const json& fields = pod["metadata"]["managedFields"].at(0)["fieldsV1"]["f:spec"];
  CHECK(fields.contains("f:containers"));
  CHECK(fields.contains("f:dnsPolicy"));
  CHECK(fields.contains("f:restartPolicy"));
  CHECK_FALSE(fields.contains("f:volumes"));
  CHECK_FALSE(fields.contains("f:tolerations"));
  CHECK_FALSE(fields.contains("f:serviceAccountName"));
  CHECK_FALSE(fields["f:containers"].at("k:{\"name\":\"c\"}").contains("f:volumeMounts"));
}

TEST_CASE("a status merge patch edited in the stored text stores what the parsed object would") {
  RestFixture f;
  const api::Resource& nodes = *f.registry->find("", "v1", "nodes");
  for (const char* name : {"text", "parsed"}) {
    REQUIRE(f.rest
                ->ensure(nodes, "",
                         {{"apiVersion", "v1"},
                          {"kind", "Node"},
                          {"metadata", {{"name", name}, {"labels", {{"zone", "a"}}}}},
                          {"spec", {{"podCIDR", "10.42.0.0/24"}}}})
                .is_ok());
    // A first status write by another manager, so that both have managedFields.
    REQUIRE(
        f.patch(
             "nodes", std::string("/api/v1/nodes/") + name + "/status?fieldManager=other",
             "application/merge-patch+json",
             R"({"status":{"capacity":{"cpu":"4"},"conditions":[{"type":"Ready","status":"False"}]}})")
            .status == 200);
  }
  const std::string status =
      R"("status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}],"addresses":[{"type":"InternalIP","address":"10.0.0.1"}]})";
  // The kubelet's form (status and a uid precondition) takes the text path; the same status
  // with metadata a status write ignores takes the parsed one.
  const std::string uid =
      json::parse(f.store->get("/registry/minions/text")->value)["metadata"]["uid"];
  http::Response text =
      f.patch("nodes", "/api/v1/nodes/text/status", "application/merge-patch+json",
              R"({"metadata":{"uid":")" + uid + R"("},)" + status + "}");
  http::Response parsed =
      f.patch("nodes", "/api/v1/nodes/parsed/status", "application/merge-patch+json",
              R"({"metadata":{"annotations":{"a":"b"}},)" + status + "}");
  REQUIRE(text.status == 200);
  REQUIRE(parsed.status == 200);
  // The same bytes but for the names, uids and timestamps of the two objects.
  auto normalized = [&](const std::string& bytes, const std::string& name) {
    json o = json::parse(bytes);
    CHECK(o["metadata"]["name"] == name);
    o["metadata"].erase("name");
    o["metadata"].erase("uid");
    o["metadata"].erase("creationTimestamp");
    o["metadata"].erase("resourceVersion");
    for (json& e : o["metadata"]["managedFields"]) e.erase("time");
    return o;
  };
  const std::string text_stored = f.store->get("/registry/minions/text")->value;
  const std::string parsed_stored = f.store->get("/registry/minions/parsed")->value;
  CHECK(normalized(text_stored, "text") == normalized(parsed_stored, "parsed"));
  CHECK(json::parse(text_stored).dump() == text_stored);  // the encoder's bytes
  CHECK(normalized(text.body, "text") == normalized(parsed.body, "parsed"));
  CHECK(json::parse(text.body)["metadata"]["resourceVersion"] ==
        std::to_string(f.store->get("/registry/minions/text")->mod_revision));
  CHECK(json::parse(text_stored)["metadata"]["managedFields"].size() == 2);

  // The same status again: answered, not written.
  const int64_t before = f.store->get("/registry/minions/text")->mod_revision;
  http::Response again = f.patch("nodes", "/api/v1/nodes/text/status",
                                 "application/merge-patch+json", "{" + status + "}");
  CHECK(again.status == 200);
  CHECK(f.store->get("/registry/minions/text")->mod_revision == before);
  // Preconditions: a stale resourceVersion is a conflict, another uid is refused.
  CHECK(f.patch("nodes", "/api/v1/nodes/text/status", "application/merge-patch+json",
                R"({"metadata":{"resourceVersion":"1"},"status":{"phase":"x"}})")
            .status == 409);
  CHECK(f.patch("nodes", "/api/v1/nodes/text/status", "application/merge-patch+json",
                R"({"metadata":{"uid":"other"},"status":{"phase":"x"}})")
            .status >= 400);
  // A field the schema does not know, under Strict validation and a wrong type: the parsed
  // path's answers.
  for (const std::string& bad :
       {std::string(R"("status":{"bogus":1})"), std::string(R"("status":{"conditions":"no"})")}) {
    http::Response strict = f.patch("nodes", "/api/v1/nodes/text/status?fieldValidation=Strict",
                                    "application/merge-patch+json", "{" + bad + "}");
    http::Response strict_parsed = f.patch(
        "nodes", "/api/v1/nodes/parsed/status?fieldValidation=Strict",
        "application/merge-patch+json", R"({"metadata":{"annotations":{"a":"b"}},)" + bad + "}");
    CHECK(strict.status == strict_parsed.status);
    if (strict.status >= 400) CHECK(strict.body == strict_parsed.body);
  }
}

}  // namespace k3c::apiserver

namespace k3c::apiserver {
namespace {

TEST_CASE("an Event expires an hour after its last write, through the store's leases") {
  ManualClock clock;
  RestFixture f(std::chrono::milliseconds(0), &clock);
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "e1"}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
                {"reason", "Tested"},
                {"message", "m"},
                {"type", "Normal"}};
  REQUIRE(f.create("events", event).status == 201);
  const std::string key = "/registry/events/default/e1";
  clock.advance(std::chrono::minutes(50));
  CHECK(f.store->expire_leases().value() == 0);
  // A write renews it: an hour from now.
  auto renewed = f.patch("events", "/api/v1/namespaces/default/events/e1",
                         "application/merge-patch+json", R"({"count":2})");
  REQUIRE(renewed.status == 200);
  clock.advance(std::chrono::minutes(50));
  CHECK(f.store->expire_leases().value() == 0);
  CHECK(f.store->get(key).is_ok());
  clock.advance(std::chrono::minutes(11));
  CHECK(f.store->expire_leases().value() == 1);
  CHECK(f.store->get(key).status().code() == Code::kNotFound);
  // A ConfigMap has no lease.
  REQUIRE(f.create_configmap({{"name", "kept"}}).status == 201);
  clock.advance(std::chrono::hours(24));
  CHECK(f.store->expire_leases().value() == 0);
}

}  // namespace
}  // namespace k3c::apiserver

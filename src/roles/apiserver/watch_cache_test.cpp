// The watch cache over a real store in a temporary directory.
#include "roles/apiserver/watch_cache.h"

#include <catch2/catch.hpp>

#include "roles/apiserver/object_codec.h"
#include "temp_dir.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string pod(const std::string& name, const std::string& app) {
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", app}}}}},
              {"spec", {{"nodeName", "n1"}}}}
      .dump();
}

std::vector<WatchEvent> drain(CacheWatcher& w, size_t n) {
  std::vector<WatchEvent> out;
  for (int i = 0; i < 100 && out.size() < n; ++i) {
    auto b = w.poll();
    for (auto& e : b.events) out.push_back(e);
    if (out.size() < n) std::this_thread::sleep_for(10ms);
  }
  return out;
}

// A store in `dir` without background maintenance.
std::unique_ptr<store::Store> open_store(const TempDir& dir) {
  store::Options o;
  o.path = dir.path() + "/state.db";
  o.maintenance_interval = 0ms;
  return std::move(store::open(o)).value();
}

struct WatchCacheFixture {
  TempDir dir;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<WatchCache> cache;
  WatchCacheFixture() {
    store = open_store(dir);
    REQUIRE(store->create("/registry/pods/default/a", pod("a", "web")).is_ok());
    cache = std::make_unique<WatchCache>(*store, decode_stored);
    REQUIRE(cache->start().is_ok());
  }
};

TEST_CASE("the cache loads, follows writes, and serves consistent reads") {
  WatchCacheFixture f;
  auto a = f.cache->get("/registry/pods/default/a", 0);
  REQUIRE(a.is_ok());
  REQUIRE(json::parse((*a)->json.text())["metadata"]["resourceVersion"] == "1");
  REQUIRE(*(*a)->field("spec.nodeName") == "n1");
  auto b = f.store->create("/registry/pods/default/b", pod("b", "db"));
  // A read after an acknowledged write sees it.
  auto listed = f.cache->list({"/registry/pods/default/", {}, {}}, 0, "", 0);
  REQUIRE(listed->items.size() == 2);
  REQUIRE(listed->revision == b->mod_revision);
  Filter web{"/registry/pods/", *LabelSelector::parse("app=web"), {}};
  REQUIRE(f.cache->list(web, 0, "", 0)->items.size() == 1);
  auto page = f.cache->list({"/registry/pods/", {}, {}}, 0, "", 1);
  REQUIRE(page->items.size() == 1);
  REQUIRE(page->next_key == "/registry/pods/default/a");
  REQUIRE(page->remaining == 1);
}

TEST_CASE("cached objects keep their non-empty selectable fields; selectors read the rest as empty") {
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", "p.1"}, {"namespace", "default"}}},
                {"involvedObject", {{"kind", "Pod"}, {"name", "p"}, {"namespace", "default"}}},
                {"reason", "FailedScheduling"},
                {"source", {{"component", "default-scheduler"}}},
                {"type", "Warning"}};
  CachedObject o = make_cached("/registry/events/default/p.1", event, 7);
  REQUIRE(*o.field("metadata.name") == "p.1");
  REQUIRE(*o.field("metadata.namespace") == "default");
  // The core name and the events.k8s.io/v1 name of one field.
  REQUIRE(*o.field("involvedObject.name") == "p");
  REQUIRE(*o.field("regarding.name") == "p");
  REQUIRE(*o.field("source") == "default-scheduler");
  REQUIRE(o.field("reportingController") == nullptr);  // reportingComponent is absent
  REQUIRE(o.field("involvedObject.uid") == nullptr);
  REQUIRE(o.fields.size() == 11);  // of 21 names, only the non-empty values
  auto matches = [&](const char* text) {
    return Filter{"/registry/events/", {}, *FieldSelector::parse(text)}.matches(o);
  };
  REQUIRE(matches("regarding.kind=Pod,type=Warning,metadata.name=p.1"));
  REQUIRE(matches("involvedObject.uid="));
  REQUIRE_FALSE(matches("involvedObject.uid!="));
  REQUIRE_FALSE(matches("reason!=FailedScheduling"));
}

TEST_CASE("watches: synthetic adds, resume, and selector transitions") {
  WatchCacheFixture f;
  Filter web{"/registry/pods/", *LabelSelector::parse("app=web"), {}};
  auto w0 = f.cache->watch(web, 0);
  REQUIRE(w0.is_ok());
  auto initial = drain(**w0, 1);
  REQUIRE(initial.size() == 1);
  REQUIRE(initial[0].type == EventType::kAdded);

  // The pod leaves the selector: a DELETED for this watch; comes back: ADDED.
  auto cur = f.store->get("/registry/pods/default/a");
  auto u = f.store->update("/registry/pods/default/a", pod("a", "other"), cur->mod_revision);
  auto back = f.store->update("/registry/pods/default/a", pod("a", "web"), u->mod_revision);
  auto events = drain(**w0, 2);
  REQUIRE(events.size() == 2);
  REQUIRE(events[0].type == EventType::kDeleted);
  REQUIRE(events[1].type == EventType::kAdded);

  // Resuming from revision 1 replays what came after.
  auto w1 = f.cache->watch({"/registry/pods/", {}, {}}, 1);
  REQUIRE(w1.is_ok());
  auto replay = drain(**w1, 2);
  REQUIRE(replay.size() == 2);
  REQUIRE(replay[0].type == EventType::kModified);
  REQUIRE(replay[1].object->revision == back->mod_revision);
  REQUIRE(f.store->remove("/registry/pods/default/a").is_ok());
  auto del = drain(**w1, 1);
  REQUIRE(del.size() == 1);
  REQUIRE(del[0].type == EventType::kDeleted);
}

std::string event(const std::string& name, const std::string& reason) {
  return json{{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"involvedObject", {{"kind", "Pod"}, {"name", "a"}, {"namespace", "default"}}},
              {"reason", reason}}
      .dump();
}

TEST_CASE("objects under an uncached prefix are read from the store and still watched") {
  TempDir dir;
  auto store = open_store(dir);
  const std::string e1 = "/registry/events/default/a.1";
  REQUIRE(store->create(e1, event("a.1", "Scheduled")).is_ok());
  WatchCache cache(*store, decode_stored, {.uncached_prefixes = {"/registry/events/"}});
  REQUIRE(cache.start().is_ok());

  auto got = cache.get(e1, 0);
  REQUIRE(got.is_ok());
  REQUIRE(json::parse((*got)->json.text())["metadata"]["resourceVersion"] == "1");
  REQUIRE(cache.get("/registry/events/default/nope", 0).status().code() == Code::kNotFound);

  Filter scheduled{"/registry/events/", {}, *FieldSelector::parse("reason=Scheduled")};
  auto w0 = cache.watch(scheduled, 0);  // the current objects first, read from the store
  REQUIRE(w0.is_ok());
  auto initial = drain(**w0, 1);
  REQUIRE(initial.size() == 1);
  REQUIRE(initial[0].type == EventType::kAdded);
  REQUIRE(initial[0].object->name == "a.1");

  // A read after an acknowledged write sees it; selectors filter what the store gives.
  auto e2 = store->create("/registry/events/default/a.2", event("a.2", "Pulled"));
  auto listed = cache.list({"/registry/events/default/", {}, {}}, 0, "", 0);
  REQUIRE(listed->items.size() == 2);
  REQUIRE(listed->revision == e2->mod_revision);
  REQUIRE(cache.list(scheduled, 0, "", 0)->items.size() == 1);
  auto page = cache.list({"/registry/events/", {}, {}}, 0, "", 1);
  REQUIRE(page->items.size() == 1);
  REQUIRE(page->next_key == e1);
  auto rest = cache.list({"/registry/events/", {}, {}}, -1, page->next_key, 1);
  REQUIRE(rest->items.size() == 1);
  REQUIRE(rest->items[0]->name == "a.2");

  // An update leaving the selector is a DELETED for that watch (the cache holds no earlier
  // version: it comes from the store's event); for a watch without one, a MODIFIED.
  auto all = cache.watch({"/registry/events/", {}, {}}, e2->mod_revision);
  REQUIRE(all.is_ok());
  auto cur = store->get(e1);
  auto changed = store->update(e1, event("a.1", "Killing"), cur->mod_revision);
  REQUIRE(changed.is_ok());
  auto left = drain(**w0, 1);
  REQUIRE(left.size() == 1);
  REQUIRE(left[0].type == EventType::kDeleted);
  auto seen = drain(**all, 1);
  REQUIRE(seen.size() == 1);
  REQUIRE(seen[0].type == EventType::kModified);
  REQUIRE(store->remove(e1).is_ok());
  auto gone = drain(**all, 1);
  REQUIRE(gone.size() == 1);
  REQUIRE(gone[0].type == EventType::kDeleted);

  // Resuming replays from the history, which keeps the uncached changes too.
  auto resumed = cache.watch({"/registry/events/", {}, {}}, e2->mod_revision);
  REQUIRE(resumed.is_ok());
  auto replay = drain(**resumed, 2);
  REQUIRE(replay.size() == 2);
  REQUIRE(replay[0].type == EventType::kModified);
  REQUIRE(replay[1].type == EventType::kDeleted);
}

TEST_CASE("a watch from before the cache's history is Gone") {
  TempDir dir;
  auto store = open_store(dir);
  for (int i = 0; i < 5; ++i)
    REQUIRE(store->create("/registry/pods/default/p" + std::to_string(i), pod("p", "x")).is_ok());
  WatchCache cache(*store, decode_stored);
  REQUIRE(cache.start().is_ok());
  auto w = cache.watch({"/registry/pods/", {}, {}}, 2);
  REQUIRE(w.status().code() == Code::kGone);
  REQUIRE_THAT(w.status().message(), Catch::Contains("too old resource version: 2 (5)"));
}


TEST_CASE("the cache holds objects packed and gives back their exact bytes") {
  WatchCacheFixture f;
  auto w = f.cache->watch({"/registry/pods/", {}, {}}, f.cache->revision());
  REQUIRE(w.is_ok());
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) {
    names.push_back("web-6c8d9878b5-" + std::to_string(1000 + i));
    REQUIRE(f.store->create("/registry/pods/default/" + names.back(), pod(names.back(), "web"))
                .is_ok());
  }
  auto events = drain(**w, 50);
  REQUIRE(events.size() == 50);
  for (size_t i = 0; i < names.size(); ++i) {
    auto o = f.cache->get("/registry/pods/default/" + names[i], 0);
    REQUIRE(o.is_ok());
    CHECK((*o)->json.packed());
    CHECK((*o)->json.held_bytes() * 2 < (*o)->json.size());
    // The bytes are the stored object's with its resourceVersion, as decoded.
    auto stored = f.store->get("/registry/pods/default/" + names[i]);
    REQUIRE(stored.is_ok());
    auto decoded = decode_stored(*stored);
    REQUIRE(decoded.is_ok());
    CHECK((*o)->json.text() == decoded->json.text());
    // A watch line carries the same bytes.
    REQUIRE(events[i].line);
    CHECK(*events[i].line == watch_event_line("ADDED", decoded->json.text()));
  }
}

}  // namespace
}  // namespace k3c::apiserver

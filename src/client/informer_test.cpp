// The informer against a fake handler chain: list, watch events, resume and relist on 410.
#include "client/informer.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "client/in_process_client.h"
#include "push_stream.h"

namespace k3c::client {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

json informer_pod(const std::string& name, int rv, const std::string& node = "") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"resourceVersion", std::to_string(rv)},
            {"managedFields", json::array({{{"manager", "kubectl"}}})}}},
          {"spec", {{"nodeName", node}}}};
}

// A watch body whose event lines the test pushes.
class FakeStream final : public testing::PushStream {
 public:
  // In the order the apiserver writes an event's members (dump() would sort them).
  void push(const json& event, bool end = false) {
    PushStream::push(
        R"({"type":)" + event["type"].dump() + R"(,"object":)" + event["object"].dump() + "}\n",
        end);
  }
};

struct FakeApi {
  std::mutex mu;
  std::condition_variable cv;
  json items = json::array();
  std::string list_rv = "10";
  std::vector<std::string> watch_targets;
  std::shared_ptr<FakeStream> stream;
  int lists = 0;

  http::Response handle(http::Request& r) {
    std::unique_lock lock(mu);
    http::Response out;
    if (r.param("watch")) {
      watch_targets.push_back(r.target);
      stream = std::make_shared<FakeStream>();
      out.stream = stream;
      cv.notify_all();
      return out;
    }
    ++lists;
    out.body =
        json{{"kind", "PodList"}, {"metadata", {{"resourceVersion", list_rv}}}, {"items", items}}
            .dump();
    return out;
  }
  std::shared_ptr<FakeStream> wait_watch(size_t n) {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, 5s, [&] { return watch_targets.size() >= n; }));
    return stream;
  }
};

template <typename F>
bool eventually(F f) {
  for (int i = 0; i < 500; ++i) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST_CASE("an informer lists, watches, indexes and relists after 410") {
  FakeApi api;
  api.items = json::array({informer_pod("a", 5, "n1"), informer_pod("b", 6, "n2")});
  InProcessClient client([&](http::Request& r) { return api.handle(r); }, {});
  Informer informer(client, resources::kPods);
  informer.add_index("node", [](const json& o) {
    return std::vector<std::string>{o["spec"].value("nodeName", "")};
  });
  std::mutex mu;
  std::vector<std::string> seen;
  informer.add_handler({[&](const ObjectPtr& o) {
                          std::lock_guard lock(mu);
                          seen.push_back("add " + key_of(*o));
                        },
                        [&](const ObjectPtr&, const ObjectPtr& o) {
                          std::lock_guard lock(mu);
                          seen.push_back("update " + key_of(*o));
                        },
                        [&](const ObjectPtr& o) {
                          std::lock_guard lock(mu);
                          seen.push_back("delete " + key_of(*o));
                        }});
  informer.start();
  REQUIRE(informer.wait_synced(5s));
  CHECK(informer.size() == 2);
  CHECK_FALSE(informer.get("default/a")->at("metadata").contains("managedFields"));
  CHECK(informer.by_index("node", "n2").size() == 1);

  auto stream = api.wait_watch(1);
  CHECK(api.watch_targets[0].find("resourceVersion=10") != std::string::npos);
  stream->push({{"type", "MODIFIED"}, {"object", informer_pod("a", 11, "n2")}});
  stream->push({{"type", "DELETED"}, {"object", informer_pod("b", 12, "n2")}});
  stream->push({{"type", "BOOKMARK"},
                {"object", {{"kind", "Pod"}, {"metadata", {{"resourceVersion", "13"}}}}}});
  REQUIRE(eventually([&] { return informer.size() == 1; }));
  CHECK(informer.by_index("node", "n2").size() == 1);
  CHECK(informer.by_index("node", "n1").empty());

  // The watch ends: the informer resumes from the last version it saw.
  stream->push({{"type", "BOOKMARK"},
                {"object", {{"kind", "Pod"}, {"metadata", {{"resourceVersion", "14"}}}}}},
               true);
  stream = api.wait_watch(2);
  CHECK(api.watch_targets[1].find("resourceVersion=14") != std::string::npos);
  CHECK(api.lists == 1);

  // 410: relist, which finds c instead of a.
  {
    std::lock_guard lock(api.mu);
    api.items = json::array({informer_pod("c", 20)});
    api.list_rv = "20";
  }
  stream->push(
      {{"type", "ERROR"}, {"object", {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}}}});
  api.wait_watch(3);
  CHECK(api.lists == 2);
  CHECK(informer.size() == 1);
  CHECK(informer.get("default/c"));
  informer.stop();
  std::lock_guard lock(mu);
  CHECK(seen == std::vector<std::string>{"add default/a", "add default/b", "update default/a",
                                         "delete default/b", "delete default/a", "add default/c"});
}

TEST_CASE("a transform trims what an informer caches; trimmed trees are shared alike trimmed") {
  auto shared = std::make_shared<SharedObjects>();
  FakeApi api_full, api_trimmed, api_also;
  api_full.items = api_trimmed.items = api_also.items = json::array({informer_pod("a", 5, "n1")});
  InProcessClient client_full([&](http::Request& r) { return api_full.handle(r); }, {});
  InProcessClient client_trimmed([&](http::Request& r) { return api_trimmed.handle(r); }, {});
  InProcessClient client_also([&](http::Request& r) { return api_also.handle(r); }, {});
  // Drops spec.nodeName, except "keep" (as control_plane_pods leaves the server's node's pods).
  CacheTransform drop_node{"no-node", [](json& o) {
                             if (o["spec"].value("nodeName", "") == "keep") return false;
                             return o["spec"].erase("nodeName") > 0;
                           }};
  Informer full(client_full, resources::kPods, {}, shared);
  Informer trimmed(client_trimmed, resources::kPods, {}, shared, drop_node);
  Informer also_trimmed(client_also, resources::kPods, {}, shared, drop_node);
  for (Informer* i : {&full, &trimmed, &also_trimmed}) {
    i->start();
    REQUIRE(i->wait_synced(5s));
  }
  CHECK(full.get("default/a")->at("spec")["nodeName"] == "n1");
  CHECK_FALSE(trimmed.get("default/a")->at("spec").contains("nodeName"));
  CHECK_FALSE(trimmed.get("default/a")->at("metadata").contains("managedFields"));
  CHECK(trimmed.get("default/a") == also_trimmed.get("default/a"));
  CHECK(full.get("default/a") != trimmed.get("default/a"));

  auto stream_full = api_full.wait_watch(1);
  auto stream_trimmed = api_trimmed.wait_watch(1);
  auto stream_also = api_also.wait_watch(1);
  // A trimmed version is parsed by the first trimming informer and taken by the second; an
  // untrimmed informer parses it again (it cannot use a trimmed tree).
  json trimmed_version = {{"type", "MODIFIED"}, {"object", informer_pod("a", 11, "n2")}};
  stream_trimmed->push(trimmed_version);
  REQUIRE(eventually(
      [&] { return trimmed.get("default/a")->at("metadata")["resourceVersion"] == "11"; }));
  stream_also->push(trimmed_version);
  stream_full->push(trimmed_version);
  REQUIRE(eventually([&] {
    return also_trimmed.get("default/a")->at("metadata")["resourceVersion"] == "11" &&
           full.get("default/a")->at("metadata")["resourceVersion"] == "11";
  }));
  CHECK(trimmed.get("default/a") == also_trimmed.get("default/a"));
  CHECK(full.get("default/a")->at("spec")["nodeName"] == "n2");
  // A version the transform leaves whole is filed as the untrimmed informer files it: one tree
  // for all three, whoever parses it first.
  json whole_version = {{"type", "MODIFIED"}, {"object", informer_pod("a", 12, "keep")}};
  stream_full->push(whole_version);
  REQUIRE(
      eventually([&] { return full.get("default/a")->at("metadata")["resourceVersion"] == "12"; }));
  stream_trimmed->push(whole_version);
  stream_also->push(whole_version);
  REQUIRE(eventually([&] {
    return trimmed.get("default/a")->at("metadata")["resourceVersion"] == "12" &&
           also_trimmed.get("default/a")->at("metadata")["resourceVersion"] == "12";
  }));
  CHECK(trimmed.get("default/a") == full.get("default/a"));
  CHECK(also_trimmed.get("default/a") == full.get("default/a"));
  CHECK(trimmed.get("default/a")->at("spec")["nodeName"] == "keep");
}

TEST_CASE(
    "a compact transform caches documents; reads and handlers get trees; documents are "
    "shared") {
  auto shared = std::make_shared<SharedObjects>();
  FakeApi api_a, api_b;
  api_a.items = api_b.items = json::array({informer_pod("a", 5, "n1"), informer_pod("b", 6)});
  InProcessClient client_a([&](http::Request& r) { return api_a.handle(r); }, {});
  InProcessClient client_b([&](http::Request& r) { return api_b.handle(r); }, {});
  CacheTransform compact{"compact", [](json&) { return true; }, /*compact=*/true};
  Informer a(client_a, resources::kPods, {}, shared, compact);
  Informer b(client_b, resources::kPods, {}, shared, compact);
  std::mutex mu;
  std::vector<std::string> seen;  // "update <old rv> <new rv>", "delete <rv>"
  auto rv = [](const ObjectPtr& o) {
    return o->at("metadata")["resourceVersion"].get<std::string>();
  };
  a.add_handler({nullptr,
                 [&](const ObjectPtr& old, const ObjectPtr& now) {
                   std::lock_guard lock(mu);
                   seen.push_back("update " + rv(old) + " " + rv(now));
                 },
                 [&](const ObjectPtr& last) {
                   std::lock_guard lock(mu);
                   seen.push_back("delete " + rv(last));
                 }});
  a.add_index("node", [](const json& pod) {
    std::string node = pod["spec"].value("nodeName", "");
    return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{node};
  });
  for (Informer* i : {&a, &b}) {
    i->start();
    REQUIRE(i->wait_synced(5s));
  }
  json expected = informer_pod("a", 5, "n1");
  expected["metadata"].erase("managedFields");
  CHECK(*a.get("default/a") == expected);
  auto cached = a.cached_by_index("node", "n1");
  REQUIRE(cached.size() == 1);
  CHECK(cached[0].doc);
  CHECK_FALSE(cached[0].tree);
  CHECK(cached[0].doc->root() == expected);
  CHECK(cached[0].doc == b.cached_by_index("namespace", "default").at(0).doc);  // shared
  CHECK(a.cached_list().size() == 2);
  CHECK(a.list().size() == 2);

  auto stream_a = api_a.wait_watch(1);
  auto stream_b = api_b.wait_watch(1);
  stream_a->push({{"type", "MODIFIED"}, {"object", informer_pod("a", 11, "n2")}});
  REQUIRE(eventually([&] { return a.by_index("node", "n2").size() == 1; }));
  CHECK(a.by_index("node", "n1").empty());  // unindexed from the old document's tree
  // The second informer takes the first one's document for the same version.
  stream_b->push({{"type", "MODIFIED"}, {"object", informer_pod("a", 11, "n2")}});
  REQUIRE(eventually([&] {
    auto mine = a.cached_by_index("namespace", "default");
    auto theirs = b.cached_by_index("namespace", "default");
    return mine.size() == 2 && theirs.size() == 2 &&
           b.get("default/a")->at("metadata")["resourceVersion"] == "11";
  }));
  stream_a->push({{"type", "DELETED"}, {"object", informer_pod("b", 12)}});
  REQUIRE(eventually([&] { return a.size() == 1; }));
  std::lock_guard lock(mu);
  CHECK(seen == std::vector<std::string>{"update 5 11", "delete 12"});
}

TEST_CASE("informers given the same SharedObjects keep one tree per object version") {
  auto shared = std::make_shared<SharedObjects>();
  FakeApi api_a, api_b;
  api_a.items = api_b.items = json::array({informer_pod("a", 5, "n1"), informer_pod("b", 6)});
  InProcessClient client_a([&](http::Request& r) { return api_a.handle(r); }, {});
  InProcessClient client_b([&](http::Request& r) { return api_b.handle(r); }, {});
  Informer first(client_a, resources::kPods, {}, shared);
  // The second watches with a selector (as the scheduler does): the same object versions.
  ListOptions selected;
  selected.field_selector = "status.phase!=Failed";
  Informer second(client_b, resources::kPods, selected, shared);
  Informer own(client_a, resources::kPods);  // not sharing: a tree of its own
  first.start();
  second.start();
  REQUIRE(first.wait_synced(5s));
  REQUIRE(second.wait_synced(5s));
  CHECK(first.get("default/a") == second.get("default/a"));
  CHECK_FALSE(first.get("default/a")->at("metadata").contains("managedFields"));

  auto stream_a = api_a.wait_watch(1);
  auto stream_b = api_b.wait_watch(1);
  json modified = {{"type", "MODIFIED"}, {"object", informer_pod("a", 11, "n2")}};
  stream_a->push(modified);
  REQUIRE(eventually([&] { return first.get("default/a")->at("spec")["nodeName"] == "n2"; }));
  stream_b->push(modified);
  REQUIRE(eventually([&] { return second.get("default/a")->at("spec")["nodeName"] == "n2"; }));
  CHECK(first.get("default/a") == second.get("default/a"));
  // A version already filed is not parsed again: the filed tree is taken (a resourceVersion
  // names one version of one object; this line lies about it, which no server does).
  stream_b->push({{"type", "MODIFIED"}, {"object", informer_pod("a", 11, "n3")}});
  // A bookmark moves the version on without filing anything; a delete found shared.
  json bookmark = {{"type", "BOOKMARK"},
                   {"object", {{"kind", "Pod"}, {"metadata", {{"resourceVersion", "12"}}}}}};
  stream_a->push(bookmark);
  stream_b->push(bookmark);
  json deleted = {{"type", "DELETED"}, {"object", informer_pod("b", 13)}};
  stream_a->push(deleted);
  stream_b->push(deleted);
  REQUIRE(eventually([&] { return first.size() == 1 && second.size() == 1; }));
  CHECK(shared->find(resources::kPods.path(), "12") == nullptr);
  CHECK(second.get("default/a")->at("spec")["nodeName"] == "n2");
  // The watch resumes after the last version either saw.
  stream_b->push({{"type", "BOOKMARK"},
                  {"object", {{"kind", "Pod"}, {"metadata", {{"resourceVersion", "14"}}}}}},
                 true);
  api_b.wait_watch(2);
  CHECK(api_b.watch_targets[1].find("resourceVersion=14") != std::string::npos);

  {
    std::lock_guard lock(api_a.mu);
    api_a.items = json::array({informer_pod("a", 11, "n2")});
  }
  own.start();
  REQUIRE(own.wait_synced(5s));
  CHECK(own.get("default/a") != first.get("default/a"));
  CHECK(*own.get("default/a") == *first.get("default/a"));
  own.stop();
  first.stop();
  second.stop();
}

}  // namespace
}  // namespace k3c::client

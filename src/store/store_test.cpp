// Unit tests of the datastore over real SQLite files in temporary directories.
#include "store/store.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "run_command.h"
#include "temp_dir.h"

namespace k3c::store {
namespace {

using namespace std::chrono_literals;

Options test_options(const TempDir& dir) {
  Options o;
  o.path = dir.path() + "/state.db";
  o.maintenance_interval = 0ms;  // tests drive compaction and leases themselves
  return o;
}

std::unique_ptr<Store> open_ok(const Options& o) {
  auto s = open(o);
  INFO(s.status().to_string());
  REQUIRE(s.is_ok());
  return std::move(s).value();
}

// Collects events from a watcher until `n` have arrived or a second has passed.
std::vector<Event> collect(Watcher& w, size_t n) {
  std::vector<Event> out;
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (out.size() < n && std::chrono::steady_clock::now() < deadline) {
    auto batch = w.next(50ms);
    if (!batch.is_ok()) break;
    for (auto& e : *batch) out.push_back(std::move(e));
  }
  return out;
}

TEST_CASE("create, get, update, remove with revisions") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  REQUIRE(s->current_revision() == 0);

  auto a = s->create("/registry/pods/a", "v1");
  REQUIRE(a.is_ok());
  REQUIRE(a->mod_revision == 1);
  REQUIRE(a->create_revision == 1);
  REQUIRE(s->current_revision() == 1);

  auto again = s->create("/registry/pods/a", "v1");
  REQUIRE(again.status().code() == Code::kAlreadyExists);

  auto g = s->get("/registry/pods/a");
  REQUIRE(g.is_ok());
  REQUIRE(g->value == "v1");

  auto u = s->update("/registry/pods/a", "v2", 1);
  REQUIRE(u.is_ok());
  REQUIRE(u->mod_revision == 2);
  REQUIRE(u->create_revision == 1);

  auto stale = s->update("/registry/pods/a", "v3", 1);
  REQUIRE(stale.status().code() == Code::kConflict);
  REQUIRE(stale.status().revision() == 2);

  REQUIRE(s->get("/registry/pods/a", 1)->value == "v1");
  REQUIRE(s->get("/registry/pods/a", 2)->value == "v2");
  REQUIRE(s->get("/registry/pods/a", 3).status().code() == Code::kFutureRevision);

  auto wrong_delete = s->remove("/registry/pods/a", 1);
  REQUIRE(wrong_delete.status().code() == Code::kConflict);
  auto d = s->remove("/registry/pods/a", 2);
  REQUIRE(d.is_ok());
  REQUIRE(d->value == "v2");
  REQUIRE(d->mod_revision == 3);
  REQUIRE(s->get("/registry/pods/a").status().code() == Code::kNotFound);
  REQUIRE(s->get("/registry/pods/a", 2)->value == "v2");
  REQUIRE(s->update("/registry/pods/a", "x", 3).status().code() == Code::kNotFound);
  REQUIRE(s->remove("/registry/pods/a").status().code() == Code::kNotFound);

  // A new incarnation after a delete.
  auto again2 = s->create("/registry/pods/a", "v4");
  REQUIRE(again2.is_ok());
  REQUIRE(again2->create_revision == 4);
}

TEST_CASE("bad keys and values are refused") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  REQUIRE(s->create("", "x").status().code() == Code::kInvalid);
  REQUIRE(s->create(std::string("a\0b", 3), "x").status().code() == Code::kInvalid);
  REQUIRE(s->create("a\xff", "x").status().code() == Code::kInvalid);
  REQUIRE(s->create(std::string(5000, 'k'), "x").status().code() == Code::kInvalid);
  REQUIRE(s->create("/big", std::string(9 << 20, 'v')).status().code() ==
          Code::kRequestEntityTooLarge);
  REQUIRE(s->create("/neg", "x", -1).status().code() == Code::kInvalid);
  REQUIRE(s->current_revision() == 0);
  // Binary values survive as they are.
  std::string binary("\0\x01\xff\n", 4);
  REQUIRE(s->create("/bin", binary).is_ok());
  REQUIRE(s->get("/bin")->value == binary);
  REQUIRE(s->create("/empty", "").is_ok());
  REQUIRE(s->get("/empty")->value.empty());
}

TEST_CASE("list with prefix, limit, continue and revision") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  for (int i = 0; i < 10; ++i) {
    REQUIRE(s->create("/registry/cm/ns/" + std::to_string(i), "v" + std::to_string(i)).is_ok());
  }
  REQUIRE(s->create("/registry/cmx", "other").is_ok());
  REQUIRE(s->create("/registry/cl", "before").is_ok());

  auto all = s->list("/registry/cm/", {});
  REQUIRE(all.is_ok());
  REQUIRE(all->items.size() == 10);
  REQUIRE(all->revision == 12);
  REQUIRE_FALSE(all->more);
  REQUIRE(all->items.front().key == "/registry/cm/ns/0");

  ListOptions page{4, "", 0};
  auto p1 = s->list("/registry/cm/", page);
  REQUIRE(p1->items.size() == 4);
  REQUIRE(p1->more);
  page.after = p1->items.back().key;
  page.revision = p1->revision;
  auto p2 = s->list("/registry/cm/", page);
  REQUIRE(p2->items.size() == 4);
  REQUIRE(p2->items.front().key == "/registry/cm/ns/4");
  page.after = p2->items.back().key;
  auto p3 = s->list("/registry/cm/", page);
  REQUIRE(p3->items.size() == 2);
  REQUIRE_FALSE(p3->more);

  // Changes after the list's revision are not seen when reading at it.
  REQUIRE(s->remove("/registry/cm/ns/0").is_ok());
  REQUIRE(s->update("/registry/cm/ns/1", "changed", 2).is_ok());
  auto old = s->list("/registry/cm/", {0, "", 12});
  REQUIRE(old->items.size() == 10);
  REQUIRE(old->items[1].value == "v1");
  auto now = s->list("/registry/cm/", {});
  REQUIRE(now->items.size() == 9);
  REQUIRE(now->items[0].value == "changed");
  REQUIRE(*s->count("/registry/cm/") == 9);
  REQUIRE(*s->count("") == 11);
  REQUIRE(s->list("/", {0, "", 99}).status().code() == Code::kFutureRevision);
  REQUIRE(s->list("/", {-1, "", 0}).status().code() == Code::kInvalid);
}

TEST_CASE("data survives reopening") {
  TempDir dir;
  {
    auto s = open_ok(test_options(dir));
    REQUIRE(s->create("/a", "1").is_ok());
    REQUIRE(s->update("/a", "2", 1).is_ok());
    REQUIRE(s->create("/b", "x").is_ok());
    REQUIRE(s->remove("/b").is_ok());
  }
  auto s = open_ok(test_options(dir));
  REQUIRE(s->current_revision() == 4);
  REQUIRE(s->get("/a")->value == "2");
  REQUIRE(s->get("/b").status().code() == Code::kNotFound);
  REQUIRE(s->create("/c", "y")->mod_revision == 5);
}

TEST_CASE("concurrent compare-and-swap: exactly one writer wins each round") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  REQUIRE(s->create("/counter", "0").is_ok());
  constexpr int kThreads = 16, kIncrements = 40;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int done = 0; done < kIncrements;) {
        auto cur = s->get("/counter");
        REQUIRE(cur.is_ok());
        int n = std::stoi(cur->value);
        auto r = s->update("/counter", std::to_string(n + 1), cur->mod_revision);
        if (r.is_ok()) {
          ++done;
        } else {
          REQUIRE(r.status().code() == Code::kConflict);
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  // Every successful increment saw the value before it: no lost update.
  REQUIRE(s->get("/counter")->value == std::to_string(kThreads * kIncrements));
  REQUIRE(s->current_revision() == 1 + kThreads * kIncrements);
}

TEST_CASE("concurrent creates of one key: one wins, the others get AlreadyExists") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  std::atomic<int> won{0}, exists{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 32; ++t) {
    threads.emplace_back([&, t] {
      auto r = s->create("/once", std::to_string(t));
      if (r.is_ok()) {
        ++won;
      } else if (r.status().code() == Code::kAlreadyExists) {
        ++exists;
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(won == 1);
  REQUIRE(exists == 31);
}

TEST_CASE("watch delivers every change in revision order with previous values") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  auto w = s->watch("/registry/pods/", 0);
  REQUIRE(w.is_ok());
  REQUIRE(s->create("/registry/pods/a", "1").is_ok());
  REQUIRE(s->create("/registry/services/x", "ignored").is_ok());
  REQUIRE(s->update("/registry/pods/a", "2", 1).is_ok());
  REQUIRE(s->remove("/registry/pods/a").is_ok());
  auto events = collect(**w, 3);
  REQUIRE(events.size() == 3);
  REQUIRE(events[0].type == Event::Type::kCreate);
  REQUIRE(events[0].kv.mod_revision == 1);
  REQUIRE_FALSE(events[0].prev.has_value());
  REQUIRE(events[1].type == Event::Type::kUpdate);
  REQUIRE(events[1].kv.value == "2");
  REQUIRE(events[1].prev->value == "1");
  REQUIRE(events[1].prev->mod_revision == 1);
  REQUIRE(events[2].type == Event::Type::kDelete);
  REQUIRE(events[2].kv.mod_revision == 4);
  REQUIRE(events[2].kv.value == "2");
  REQUIRE(events[2].prev->value == "2");
}

TEST_CASE("watch resumes from a past revision, replaying history then live events") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  REQUIRE(s->create("/k/a", "1").is_ok());     // 1
  REQUIRE(s->update("/k/a", "2", 1).is_ok());  // 2
  REQUIRE(s->create("/k/b", "1").is_ok());     // 3
  REQUIRE(s->remove("/k/a").is_ok());          // 4
  auto w = s->watch("/k/", 1);
  REQUIRE(w.is_ok());
  REQUIRE(s->create("/k/c", "1").is_ok());  // 5
  auto events = collect(**w, 4);
  REQUIRE(events.size() == 4);
  std::vector<int64_t> revs;
  for (auto& e : events) revs.push_back(e.kv.mod_revision);
  REQUIRE(revs == std::vector<int64_t>{2, 3, 4, 5});
  REQUIRE(events[0].prev->value == "1");
  REQUIRE(events[2].type == Event::Type::kDelete);
  REQUIRE(events[2].kv.value == "2");
  REQUIRE(events[2].kv.create_revision == 1);
}

TEST_CASE("history replay and concurrent writes never reorder or duplicate") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop && i < 3000; ++i)
      REQUIRE(s->create("/w/" + std::to_string(i), "x").is_ok());
  });
  while (s->current_revision() < 100) std::this_thread::sleep_for(1ms);
  std::vector<std::unique_ptr<Watcher>> watchers;
  for (int i = 0; i < 5; ++i) {
    auto w = s->watch("/w/", 10 * i + 1);
    REQUIRE(w.is_ok());
    watchers.push_back(std::move(w).value());
  }
  writer.join();
  int64_t last = s->current_revision();
  for (int i = 0; i < 5; ++i) {
    auto events = collect(*watchers[i], static_cast<size_t>(last - (10 * i + 1)));
    REQUIRE(static_cast<int64_t>(events.size()) == last - (10 * i + 1));
    for (size_t j = 0; j < events.size(); ++j) {
      REQUIRE(events[j].kv.mod_revision == 10 * i + 2 + static_cast<int64_t>(j));
    }
  }
}

TEST_CASE("a watcher that falls too far behind is ended with Compacted") {
  TempDir dir;
  auto o = test_options(dir);
  o.watch_queue_limit = 10;
  auto s = open_ok(o);
  auto w = s->watch("/", 0);
  REQUIRE(w.is_ok());
  for (int i = 0; i < 11; ++i) REQUIRE(s->create("/x" + std::to_string(i), "v").is_ok());
  auto r = (*w)->next(10ms);
  REQUIRE(r.status().code() == Code::kCompacted);
  // Other watchers and writes are unaffected.
  REQUIRE(s->create("/y", "v").is_ok());
}

TEST_CASE("compaction: reads and watches below the compacted revision fail") {
  TempDir dir;
  auto s = open_ok(test_options(dir));
  REQUIRE(s->create("/a", "1").is_ok());     // 1
  REQUIRE(s->update("/a", "2", 1).is_ok());  // 2
  REQUIRE(s->create("/b", "1").is_ok());     // 3
  REQUIRE(s->remove("/b").is_ok());          // 4
  REQUIRE(s->update("/a", "3", 2).is_ok());  // 5
  REQUIRE(s->compact(4).is_ok());
  REQUIRE(s->compacted_revision() == 4);
  REQUIRE(s->get("/a", 2).status().code() == Code::kCompacted);
  REQUIRE(s->get("/a", 3).status().code() == Code::kCompacted);
  REQUIRE(s->get("/a", 4)->value == "2");  // what was live at the compacted revision stays
  REQUIRE(s->get("/a")->value == "3");
  REQUIRE(s->get("/b", 4).status().code() == Code::kNotFound);
  REQUIRE(s->list("/", {0, "", 3}).status().code() == Code::kCompacted);
  REQUIRE(s->list("/", {0, "", 4})->items.size() == 1);
  auto w = s->watch("/", 3);
  REQUIRE(w.status().code() == Code::kCompacted);
  REQUIRE(w.status().revision() == 4);
  // Watching from the compacted revision still works, with the previous value of the update.
  auto w4 = s->watch("/", 4);
  REQUIRE(w4.is_ok());
  auto events = collect(**w4, 1);
  REQUIRE(events.size() == 1);
  REQUIRE(events[0].prev->value == "2");
  REQUIRE(s->compact(3).code() == Code::kCompacted);
  REQUIRE(s->compact(99).code() == Code::kFutureRevision);
  // Revisions keep counting after compaction removed rows, also across a reopen.
  REQUIRE(s->create("/c", "1")->mod_revision == 6);
}

TEST_CASE("compaction keeps revisions unique after the newest rows were removed") {
  TempDir dir;
  {
    auto s = open_ok(test_options(dir));
    REQUIRE(s->create("/a", "1").is_ok());
    REQUIRE(s->remove("/a").is_ok());
    REQUIRE(s->compact(2).is_ok());  // removes both rows
  }
  auto s = open_ok(test_options(dir));
  REQUIRE(s->compacted_revision() == 2);
  REQUIRE(s->current_revision() == 2);
  REQUIRE(s->create("/a", "again")->mod_revision == 3);
}

TEST_CASE("automatic compaction keeps the configured history") {
  TempDir dir;
  ManualClock clock;
  auto o = test_options(dir);
  o.clock = &clock;
  o.retain_revisions = 100;
  o.retain_time = 10s;
  auto s = open_ok(o);
  REQUIRE(s->create("/k", "0").is_ok());
  int64_t rev = 1;
  for (int i = 1; i <= 500; ++i) {
    rev = s->update("/k", std::to_string(i), rev)->mod_revision;
    if (i % 50 == 0) {
      clock.advance(1s);
      REQUIRE(s->compact_by_policy().is_ok());
    }
  }
  // 10 s of time at 50 revisions a second = 500 revisions: time keeps more than count, so
  // nothing older than 10 s is gone and nothing was compacted beyond it.
  REQUIRE(s->compacted_revision() <= 1);
  for (int i = 0; i < 20; ++i) {
    clock.advance(1s);
    REQUIRE(s->compact_by_policy().is_ok());
  }
  // Now time allows everything; the count keeps the last 100 revisions.
  REQUIRE(s->compacted_revision() == rev - 100);
  REQUIRE(s->get("/k", rev - 100).is_ok());
  REQUIRE(s->get("/k", rev - 101).status().code() == Code::kCompacted);
}

TEST_CASE("leases expire keys through one timer, and rewrites re-arm them") {
  TempDir dir;
  ManualClock clock;
  auto o = test_options(dir);
  o.clock = &clock;
  auto s = open_ok(o);
  REQUIRE(s->create("/events/a", "x", 60).is_ok());
  REQUIRE(s->create("/events/b", "x", 120).is_ok());
  REQUIRE(s->create("/keep", "x").is_ok());
  clock.advance(30s);
  auto b = s->get("/events/b");
  REQUIRE(s->update("/events/b", "y", b->mod_revision, 10).is_ok());  // now due at 40 s
  REQUIRE(*s->expire_leases() == 0);
  clock.advance(15s);
  REQUIRE(*s->expire_leases() == 1);
  REQUIRE(s->get("/events/b").status().code() == Code::kNotFound);
  REQUIRE(s->get("/events/a").is_ok());
  clock.advance(20s);
  REQUIRE(*s->expire_leases() == 1);
  REQUIRE(s->get("/events/a").status().code() == Code::kNotFound);
  REQUIRE(s->get("/keep").is_ok());
}

TEST_CASE("leases are re-armed after a reopen") {
  TempDir dir;
  ManualClock clock;
  auto o = test_options(dir);
  o.clock = &clock;
  {
    auto s = open_ok(o);
    REQUIRE(s->create("/events/a", "x", 60).is_ok());
  }
  auto s = open_ok(o);
  clock.advance(59s);
  REQUIRE(*s->expire_leases() == 0);
  clock.advance(2s);
  REQUIRE(*s->expire_leases() == 1);
}

TEST_CASE("a file that is not a datastore is refused with a clear error") {
  TempDir dir;
  auto o = test_options(dir);
  SECTION("random bytes") {
    std::ofstream(o.path) << std::string(8192, 'z');
    auto s = open(o);
    REQUIRE(s.status().code() == Code::kCorrupt);
    REQUIRE_THAT(s.status().message(), Catch::Contains("not a database"));
  }
  SECTION("another SQLite database") {
    REQUIRE(run_command({"sqlite3", o.path, "CREATE TABLE t(x)"}).exit_code == 0);
    auto s = open(o);
    REQUIRE(s.status().code() == Code::kCorrupt);
    REQUIRE_THAT(s.status().message(), Catch::Contains("not a k3c datastore"));
  }
  SECTION("a directory that does not exist") {
    o.path = dir.path() + "/missing/state.db";
    auto s = open(o);
    REQUIRE_FALSE(s.is_ok());
    REQUIRE_THAT(s.status().message(), Catch::Contains("does not exist"));
  }
}

}  // namespace
}  // namespace k3c::store

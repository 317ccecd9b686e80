// Tests for ReadinessLatch and RoleRunner: start order, rollback on a failed start, reverse
// stop, the stop deadline.
#include "core/lifecycle.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <thread>

namespace k3c {
namespace {

using namespace std::chrono_literals;

// What the fake roles did, in order ("start a", "stop b").
class Journal {
 public:
  void add(std::string entry) {
    std::lock_guard lock(mu_);
    entries_.push_back(std::move(entry));
  }
  std::vector<std::string> entries() const {
    std::lock_guard lock(mu_);
    return entries_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> entries_;  // guarded by mu_
};

// A role with switches: fail its start, or block its stop until `release_stop` is set.
class FakeRole : public Role {
 public:
  FakeRole(std::string name, Journal& journal) : name_(std::move(name)), journal_(journal) {}

  std::string_view name() const override { return name_; }
  Status start() override {
    journal_.add("start " + name_);
    if (waits_for != nullptr && !waits_for->wait_for(50ms)) {
      return error(Code::kServiceUnavailable, "dependency not ready");
    }
    if (!start_status.is_ok()) return start_status;
    ready_ = true;
    up.set();
    return Status::ok();
  }
  void stop() override {
    journal_.add("stop " + name_);
    if (block_stop) release_stop.wait();
    ready_ = false;
    stop_returned.set();
  }
  bool ready() const override { return ready_; }

  Status start_status;
  const ReadinessLatch* waits_for = nullptr;
  bool block_stop = false;
  ReadinessLatch up;
  ReadinessLatch release_stop;
  ReadinessLatch stop_returned;

 private:
  std::string name_;
  Journal& journal_;
  std::atomic<bool> ready_{false};
};

using Roles = std::vector<std::shared_ptr<Role>>;

TEST_CASE("ReadinessLatch times out until set, then stays set") {
  ReadinessLatch latch;
  CHECK_FALSE(latch.is_set());
  CHECK_FALSE(latch.wait_for(10ms));
  std::thread setter([&] {
    std::this_thread::sleep_for(20ms);
    latch.set();
  });
  CHECK(latch.wait_for(5s));
  setter.join();
  latch.set();  // a second set is harmless
  CHECK(latch.is_set());
  CHECK(latch.wait_for(0ms));
}

TEST_CASE("RoleRunner starts in order and stops in reverse") {
  Journal journal;
  auto a = std::make_shared<FakeRole>("a", journal);
  auto b = std::make_shared<FakeRole>("b", journal);
  auto c = std::make_shared<FakeRole>("c", journal);
  RoleRunner runner(Roles{a, b, c});
  REQUIRE(runner.start_all().is_ok());
  CHECK(runner.running() == std::vector<std::string>{"a", "b", "c"});
  CHECK((a->ready() && b->ready() && c->ready()));

  StopReport report = runner.stop_all(5s);
  CHECK(report.stopped == std::vector<std::string>{"c", "b", "a"});
  CHECK(report.overran.empty());
  CHECK(runner.running().empty());
  CHECK(journal.entries() ==
        std::vector<std::string>{"start a", "start b", "start c", "stop c", "stop b", "stop a"});

  // Idempotent: nothing is stopped twice.
  CHECK(runner.stop_all(5s).stopped.empty());
  CHECK(journal.entries().size() == 6);
}

TEST_CASE("A failed start stops the started roles in reverse and names the role") {
  Journal journal;
  auto a = std::make_shared<FakeRole>("a", journal);
  auto b = std::make_shared<FakeRole>("b", journal);
  auto c = std::make_shared<FakeRole>("c", journal);
  auto d = std::make_shared<FakeRole>("d", journal);
  c->start_status = error(Code::kCorrupt, "database is not ours");
  RoleRunner runner(Roles{a, b, c, d});

  Status status = runner.start_all();
  CHECK(status.code() == Code::kCorrupt);
  CHECK(status.message() == "c: database is not ours");
  CHECK(runner.running().empty());
  CHECK(journal.entries() ==
        std::vector<std::string>{"start a", "start b", "start c", "stop b", "stop a"});
}

TEST_CASE("Readiness latches order roles: a role whose dependency is not up fails") {
  Journal journal;
  auto store = std::make_shared<FakeRole>("store", journal);
  auto api = std::make_shared<FakeRole>("apiserver", journal);
  api->waits_for = &store->up;

  SECTION("dependency first: both start") {
    RoleRunner runner(Roles{store, api});
    CHECK(runner.start_all().is_ok());
  }
  SECTION("dependency last: the dependent role times out") {
    RoleRunner runner(Roles{api, store});
    Status status = runner.start_all();
    CHECK(status.code() == Code::kServiceUnavailable);
    CHECK(status.message() == "apiserver: dependency not ready");
    CHECK_FALSE(store->up.is_set());
  }
}

TEST_CASE("A stop that overruns the deadline is skipped and the rest still stop") {
  Journal journal;
  auto a = std::make_shared<FakeRole>("a", journal);
  auto hung = std::make_shared<FakeRole>("hung", journal);
  auto c = std::make_shared<FakeRole>("c", journal);
  hung->block_stop = true;
  RoleRunner runner(Roles{a, hung, c});
  REQUIRE(runner.start_all().is_ok());

  const auto began = std::chrono::steady_clock::now();
  StopReport report = runner.stop_all(200ms);
  const auto took = std::chrono::steady_clock::now() - began;

  CHECK(report.overran == std::vector<std::string>{"hung"});
  CHECK(report.stopped == std::vector<std::string>{"c", "a"});
  CHECK(took >= 200ms);
  CHECK(took < 2s);
  CHECK_FALSE(a->ready());
  CHECK_FALSE(hung->stop_returned.is_set());

  // The detached helper still owns the role; let its stop() finish so no thread outlives
  // the test.
  hung->release_stop.set();
  CHECK(hung->stop_returned.wait_for(5s));
}

TEST_CASE("The runner's destructor stops roles its owner left running") {
  Journal journal;
  auto a = std::make_shared<FakeRole>("a", journal);
  {
    RoleRunner runner(Roles{a});
    REQUIRE(runner.start_all().is_ok());
  }
  CHECK(journal.entries() == std::vector<std::string>{"start a", "stop a"});
}

}  // namespace
}  // namespace k3c

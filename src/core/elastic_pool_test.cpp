#include "core/elastic_pool.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <thread>

#include "eventually.h"

using namespace std::chrono_literals;
using k3c::ElasticPool;

namespace {
using k3c::testing::eventually;
}  // namespace

TEST_CASE("an elastic pool starts threads only for work, up to its maximum, and ends idle ones") {
  ElasticPool pool("test-pool", 3, 100ms);
  REQUIRE(pool.threads() == 0);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> started{0}, finished{0};
  for (int i = 0; i < 5; ++i) {
    REQUIRE(pool.submit([&, gate] {
      ++started;
      gate.wait();
      ++finished;
    }));
  }
  // Three run at once (the maximum); the other two wait in order.
  REQUIRE(eventually([&] { return started == 3; }));
  std::this_thread::sleep_for(50ms);
  REQUIRE(started == 3);
  REQUIRE(pool.threads() == 3);
  release.set_value();
  REQUIRE(eventually([&] { return finished == 5; }));
  // Idle for 100 ms, every thread ends.
  REQUIRE(eventually([&] { return pool.threads() == 0; }));
  // And work brings one back.
  std::atomic<bool> ran{false};
  REQUIRE(pool.submit([&] { ran = true; }));
  REQUIRE(eventually([&] { return ran.load(); }));
}

TEST_CASE("an idle thread takes the next task instead of a new thread starting") {
  ElasticPool pool("test-pool", 8, 10s);
  for (int i = 0; i < 20; ++i) {
    std::promise<void> done;
    REQUIRE(pool.submit([&] { done.set_value(); }));
    done.get_future().wait();
    std::this_thread::sleep_for(2ms);  // the thread is back to idle
  }
  REQUIRE(pool.threads() == 1);
}

TEST_CASE("stop runs what was submitted, joins the threads, and refuses later tasks") {
  std::atomic<int> ran{0};
  ElasticPool pool("test-pool", 1, 10s);
  for (int i = 0; i < 10; ++i) {
    REQUIRE(pool.submit([&] {
      std::this_thread::sleep_for(1ms);
      ++ran;
    }));
  }
  pool.stop();
  REQUIRE(ran == 10);
  REQUIRE(pool.threads() == 0);
  REQUIRE_FALSE(pool.submit([&] { ++ran; }));
  pool.stop();  // idempotent
  REQUIRE(ran == 10);
}

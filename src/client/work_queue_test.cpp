#include "client/work_queue.h"

#include <catch2/catch.hpp>
#include <thread>

namespace k3c::client {
namespace {

using namespace std::chrono_literals;

TEST_CASE("a key queued many times is handed out once") {
  WorkQueue q;
  q.add("a");
  q.add("a");
  q.add("b");
  CHECK(q.length() == 2);
  CHECK(q.get() == "a");
  CHECK(q.get() == "b");
  CHECK_FALSE(q.get_for(10ms));
}

TEST_CASE("a key added while processed comes back only after done") {
  WorkQueue q;
  q.add("a");
  auto key = q.get();
  REQUIRE(key == "a");
  q.add("a");
  CHECK_FALSE(q.get_for(10ms));  // never to two workers at once
  q.done("a");
  CHECK(q.get_for(100ms) == "a");
  q.done("a");
  CHECK_FALSE(q.get_for(10ms));
}

TEST_CASE("failures back off exponentially and forget resets") {
  ManualClock clock;
  WorkQueue q(clock, 10ms, 1s);
  q.add_rate_limited("a");  // 10 ms
  CHECK_FALSE(q.get_for(1ms));
  clock.advance(10ms);
  CHECK(q.get_for(200ms) == "a");
  q.done("a");
  q.add_rate_limited("a");  // 20 ms
  clock.advance(15ms);
  CHECK_FALSE(q.get_for(1ms));
  clock.advance(5ms);
  CHECK(q.get_for(200ms) == "a");
  q.done("a");
  CHECK(q.failures("a") == 2);
  q.forget("a");
  CHECK(q.failures("a") == 0);
}

TEST_CASE("add_after delays a key and shut_down wakes waiting workers") {
  WorkQueue q;
  q.add_after("late", 30ms);
  auto start = std::chrono::steady_clock::now();
  CHECK(q.get() == "late");
  CHECK(std::chrono::steady_clock::now() - start >= 25ms);
  std::thread t([&] {
    std::this_thread::sleep_for(20ms);
    q.shut_down();
  });
  CHECK_FALSE(q.get());
  t.join();
}

TEST_CASE("a key waits once, for the earliest of the delays asked") {
  ManualClock clock;
  WorkQueue q(clock);
  q.add_after("k", 10s);
  q.add_after("k", 1s);  // earlier: replaces the 10 s wait
  q.add_after("k", 5s);  // later: ignored
  clock.advance(1s);
  CHECK(q.get_for(500ms) == "k");
  q.done("k");
  // Neither the 5 s nor the 10 s ask is still waiting.
  clock.advance(20s);
  CHECK_FALSE(q.get_for(100ms));
}

}  // namespace
}  // namespace k3c::client

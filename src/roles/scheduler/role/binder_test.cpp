// The binder: bindings run concurrently on its threads; once stopped it takes no more.
#include "roles/scheduler/role/binder.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace k3c::scheduler {
namespace {

TEST_CASE("the binder runs bindings concurrently, up to its threads") {
  Binder binder(4, 8);
  std::mutex mu;
  std::condition_variable cv;
  int running = 0, finished = 0;
  auto binding = [&] {
    std::unique_lock lock(mu);
    ++running;
    cv.notify_all();
    // Each waits until four run at once: passes only if four threads bind concurrently.
    bool together = cv.wait_for(lock, std::chrono::seconds(5), [&] { return running >= 4; });
    if (together) ++finished;
    cv.notify_all();
  };
  for (int i = 0; i < 4; ++i) REQUIRE(binder.submit(binding));
  std::unique_lock lock(mu);
  REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return finished == 4; }));
}

TEST_CASE("a stopped binder refuses bindings") {
  Binder binder(2, 2);
  std::atomic<int> ran{0};
  REQUIRE(binder.submit([&] { ++ran; }));
  binder.stop();
  CHECK_FALSE(binder.submit([&] { ran += 10; }));
  CHECK(ran < 10);
}

}  // namespace
}  // namespace k3c::scheduler

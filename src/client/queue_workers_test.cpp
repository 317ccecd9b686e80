// Elastic queue workers: one worker idles; keys that block bring more, up to the maximum,
// with one kept free for the next key; the extra ones end once idle; stop() joins them all.
#include "client/queue_workers.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <set>
#include <thread>

#include "eventually.h"

namespace k3c::client {
namespace {

using namespace std::chrono_literals;

// Workers whose keys block until released (all of them, or one by name).
struct Blocking {
  WorkQueue queue{SystemClock::instance()};
  std::mutex mu;
  std::condition_variable cv;
  bool release_all = false;
  std::set<std::string> released;
  int running = 0, finished = 0;
  QueueWorkers workers{"test-workers", queue,
                       [this](const std::string& key) {
                         std::unique_lock lock(mu);
                         ++running;
                         cv.wait(lock, [&] { return release_all || released.count(key); });
                         --running;
                         ++finished;
                         queue.done(key);
                       },
                       100ms};
  template <typename F>
  bool holds(F f) {
    return k3c::testing::eventually([&] {
      std::lock_guard lock(mu);
      return f();
    });
  }
  void release(const std::string& key = "") {
    {
      std::lock_guard lock(mu);
      if (key.empty()) release_all = true;
      released.insert(key);
    }
    cv.notify_all();
  }
};

TEST_CASE("keys that block start more workers, up to the maximum; idle extras end") {
  Blocking b;
  b.workers.run(3);
  CHECK(b.workers.live() == 1);
  for (const char* key : {"a", "b", "c", "d", "e"}) b.queue.add(key);
  // Three block at once (the maximum); the other two wait for a free worker.
  REQUIRE(b.holds([&] { return b.running == 3; }));
  CHECK(b.workers.live() == 3);
  b.release();
  REQUIRE(b.holds([&] { return b.finished == 5; }));
  // The extra workers end after 100 ms without a key; the first one stays.
  CHECK(k3c::testing::eventually([&] { return b.workers.live() == 1; }));
  b.workers.stop();
  CHECK(b.workers.live() == 0);
}

TEST_CASE("below the maximum a key added while every worker blocks is taken at once") {
  Blocking b;
  b.workers.run(10);
  b.queue.add("a");
  b.queue.add("b");
  REQUIRE(b.holds([&] { return b.running == 2; }));
  // Past its idle life the free worker stays: the others are busy.
  std::this_thread::sleep_for(300ms);
  CHECK(b.workers.live() == 3);
  b.release("late");
  b.queue.add("late");
  CHECK(b.holds([&] { return b.finished == 1; }));
  b.release();
  b.workers.stop();
}

}  // namespace
}  // namespace k3c::client

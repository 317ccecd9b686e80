#include "roles/controllers/common/controller.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "eventually.h"
#include "roles/controllers/common/parallel_calls.h"

using namespace std::chrono_literals;
using k3c::Status;

namespace {
using k3c::testing::eventually;

// Reconciles block until released; records which keys ran at once.
class GatedController : public k3c::controllers::Controller {
 public:
  GatedController() : Controller("gated") {}
  ~GatedController() override {
    release();
    stop();
  }
  Status reconcile(const std::string& key) override {
    std::unique_lock lock(mu_);
    running_.insert(key);
    most_at_once_ = std::max(most_at_once_, running_.size());
    cv_.wait(lock, [&] { return released_; });
    running_.erase(key);
    ++done_;
    return Status::ok();
  }
  void release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  size_t running() {
    std::lock_guard lock(mu_);
    return running_.size();
  }
  size_t most_at_once() {
    std::lock_guard lock(mu_);
    return most_at_once_;
  }
  int done() {
    std::lock_guard lock(mu_);
    return done_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> running_;
  size_t most_at_once_ = 0;
  int done_ = 0;
  bool released_ = false;
};

}  // namespace

TEST_CASE("a controller keeps one worker while idle and grows to its maximum under work") {
  GatedController c;
  c.run(3);
  std::this_thread::sleep_for(50ms);
  REQUIRE(c.live_workers() == 1);
  for (const char* key : {"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}) c.enqueue(key);
  // Keys wait while every worker is busy: workers are added, up to three.
  REQUIRE(eventually([&] { return c.running() == 3; }));
  std::this_thread::sleep_for(50ms);
  REQUIRE(c.live_workers() == 3);
  REQUIRE(c.most_at_once() == 3);
  c.release();
  REQUIRE(eventually([&] { return c.done() == 5; }));
  c.stop();
  REQUIRE(c.live_workers() == 0);
}

TEST_CASE("parallel calls: on the pool's threads, at once, results in order") {
  k3c::ElasticPool pool("test-calls", 4);
  std::mutex mu;
  std::condition_variable cv;
  int running = 0, most = 0;
  // Each call waits until four run at once (or a second passes): they run side by side.
  auto results = k3c::controllers::parallel_calls<int>(pool, 4, [&](size_t i) {
    std::unique_lock lock(mu);
    most = std::max(most, ++running);
    cv.notify_all();
    cv.wait_for(lock, 1s, [&] { return running == 4; });
    return static_cast<int>(i) * 10;
  });
  CHECK(results == std::vector<int>{0, 10, 20, 30});
  CHECK(most == 4);
  // A stopped pool: the calls run on the caller's thread.
  pool.stop();
  const auto caller = std::this_thread::get_id();
  auto inline_results = k3c::controllers::parallel_calls<bool>(
      pool, 3, [&](size_t) { return std::this_thread::get_id() == caller; });
  CHECK(inline_results == std::vector<bool>{true, true, true});
}

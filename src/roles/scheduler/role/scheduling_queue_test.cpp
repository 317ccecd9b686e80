// The scheduling queue with a manual clock: priority order, backoff, moving unschedulable pods
// back on events and after the maximum wait, and updates during an attempt.
#include "roles/scheduler/role/scheduling_queue.h"

#include <catch2/catch.hpp>

#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using namespace std::chrono_literals;
using testing::PodBuilder;

struct Fixture {
  ManualClock clock;
  SchedulingQueue queue{clock, QueueSettings{1s, 10s, 5min}};

  void add(PodBuilder pod, bool spec_changed = true) {
    auto object = std::make_shared<const nlohmann::json>(pod.raw());
    queue.add_or_update(pod.build(), object, spec_changed);
  }
  std::string pop_key() {
    auto p = queue.pop(0s);
    return p ? p->key() : "";
  }
  QueuedPod pop() {
    auto p = queue.pop(0s);
    REQUIRE(p);
    return *p;
  }
};

TEST_CASE("pods come out by priority, then by arrival") {
  Fixture f;
  f.add(PodBuilder("low").priority(0));
  f.clock.advance(1ms);
  f.add(PodBuilder("high").priority(100));
  f.clock.advance(1ms);
  f.add(PodBuilder("low2").priority(0));
  f.clock.advance(1ms);
  f.add(PodBuilder("high2").priority(100));
  CHECK(f.pop_key() == "default/high");
  CHECK(f.pop_key() == "default/high2");
  CHECK(f.pop_key() == "default/low");
  CHECK(f.pop_key() == "default/low2");
  CHECK(f.pop_key().empty());
}

TEST_CASE("a pod queued twice comes out once; an update changes its place in the order") {
  Fixture f;
  f.add(PodBuilder("a"));
  f.clock.advance(1ms);
  f.add(PodBuilder("b"));
  f.add(PodBuilder("b").priority(5));
  CHECK(f.queue.size() == 2);
  CHECK(f.pop_key() == "default/b");
  CHECK(f.pop_key() == "default/a");
  CHECK(f.pop_key().empty());
}

TEST_CASE("a failed pod backs off 1 s doubling to 10 s per attempt") {
  Fixture f;
  CHECK(f.queue.backoff_for(1) == 1s);
  CHECK(f.queue.backoff_for(2) == 2s);
  CHECK(f.queue.backoff_for(4) == 8s);
  CHECK(f.queue.backoff_for(5) == 10s);
  CHECK(f.queue.backoff_for(30) == 10s);

  f.add(PodBuilder("a"));
  for (auto wait : {1s, 2s, 4s, 8s, 10s, 10s}) {
    QueuedPod p = f.pop();
    f.queue.requeue_backoff(p);
    CHECK(f.queue.where("default/a") == "backoff");
    f.clock.advance(wait - 1ms);
    CHECK(f.pop_key().empty());
    f.clock.advance(1ms);
  }
  CHECK(f.pop_key() == "default/a");
}

TEST_CASE("unschedulable pods wait for an event, then return") {
  Fixture f;
  f.add(PodBuilder("a"));
  f.add(PodBuilder("b").spec("affinity", {{"podAffinity",
                                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                                             {{{"labelSelector", {{"matchLabels", {{"x", "y"}}}}},
                                               {"topologyKey", "kubernetes.io/hostname"}}}}}}}));
  QueuedPod a = f.pop();
  QueuedPod b = f.pop();
  f.queue.requeue_unschedulable(a);
  f.queue.requeue_unschedulable(b);
  CHECK(f.queue.where("default/a") == "unschedulable");
  f.clock.advance(20s);
  CHECK(f.pop_key().empty());

  SECTION("an event moves them: past their backoff straight to active") {
    f.queue.move_all();
    CHECK(f.queue.where("default/a") == "active");
    CHECK(f.pop_key() == "default/a");
  }
  SECTION("an event right after the failure: through backoff") {
    f.add(PodBuilder("c"));
    QueuedPod c = f.pop();
    f.queue.requeue_unschedulable(c);
    f.queue.move_all();
    CHECK(f.queue.where("default/c") == "backoff");
    f.clock.advance(1s);
    CHECK(f.pop_key() == "default/a");
  }
  SECTION("a filtered event moves only the pods it concerns") {
    f.queue.move_all([](const PodInfo& p) { return !p.required_affinity.empty(); });
    CHECK(f.queue.where("default/a") == "unschedulable");
    CHECK(f.pop_key() == "default/b");
  }
  SECTION("a status-only update leaves it waiting; a spec change moves it") {
    f.add(PodBuilder("a"), false);
    CHECK(f.queue.where("default/a") == "unschedulable");
    f.add(PodBuilder("a").label("new", "label"), true);
    CHECK(f.queue.where("default/a") == "active");
  }
  SECTION("without events they are tried again after 5 minutes (checked every 30 s)") {
    f.clock.advance(5min - 20s - 1s);
    CHECK(f.pop_key().empty());
    f.clock.advance(30s);
    CHECK(f.pop_key() == "default/a");
  }
}

TEST_CASE("an event during an attempt sends the failed pod to backoff, not unschedulable") {
  Fixture f;
  f.add(PodBuilder("a"));
  QueuedPod a = f.pop();
  f.queue.move_all();  // e.g. a node was added while the pod was being decided
  f.queue.requeue_unschedulable(a);
  CHECK(f.queue.where("default/a") == "backoff");
  f.clock.advance(1s);
  CHECK(f.pop_key() == "default/a");
}

TEST_CASE("a pod removed or changed during its attempt") {
  Fixture f;
  f.add(PodBuilder("a"));
  QueuedPod a = f.pop();
  CHECK(f.queue.where("default/a") == "in-flight");
  SECTION("removed: gone after the attempt") {
    f.queue.remove("default/a");
    f.queue.requeue_unschedulable(a);
    CHECK(f.queue.where("default/a").empty());
    CHECK(f.queue.size() == 0);
  }
  SECTION("bound: done removes it") {
    f.queue.done("default/a");
    CHECK(f.queue.size() == 0);
  }
  SECTION("its spec changed: tried again with the new version") {
    f.add(PodBuilder("a").priority(7));
    f.queue.requeue_unschedulable(a);
    CHECK(f.queue.where("default/a") == "backoff");
    f.clock.advance(1s);
    auto again = f.queue.pop(0s);
    REQUIRE(again);
    CHECK(again->info->priority == 7);
    CHECK(again->attempts == 2);
  }
}

TEST_CASE("pop waits for a pod and close ends it") {
  Fixture f;
  auto started = std::chrono::steady_clock::now();
  CHECK_FALSE(f.queue.pop(50ms));
  CHECK(std::chrono::steady_clock::now() - started >= 50ms);
  f.queue.close();
  f.add(PodBuilder("a"));
  CHECK_FALSE(f.queue.pop(1s));
}

}  // namespace
}  // namespace k3c::scheduler

// Backoff: upstream's crash-loop delays (10 s doubling to 5 min, reset after 10 min) and Go's
// duration text in the messages.
#include "roles/kubelet/pods/backoff.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;

TEST_CASE("delays double from 10s to 5m") {
  ManualClock clock;
  Backoff b(clock);
  std::vector<std::string> seen;
  for (int i = 0; i < 7; ++i) {
    b.next("k", clock.wall_now());
    seen.push_back(go_duration(b.get("k")));
    clock.advance(b.get("k"));
  }
  CHECK(seen == std::vector<std::string>{"10s", "20s", "40s", "1m20s", "2m40s", "5m0s", "5m0s"});
}

TEST_CASE("in backoff until the delay has passed since the event") {
  ManualClock clock;
  Backoff b(clock);
  const auto exited = clock.wall_now();
  CHECK_FALSE(b.in_backoff_since("k", exited));  // unknown key: restart at once
  b.next("k", exited);
  clock.advance(9s);
  CHECK(b.in_backoff_since("k", exited));
  clock.advance(1s);
  CHECK_FALSE(b.in_backoff_since("k", exited));
  CHECK_FALSE(b.in_backoff_since("other", exited));
}

TEST_CASE("an event more than 10 minutes after the last step starts over") {
  ManualClock clock;
  Backoff b(clock);
  for (int i = 0; i < 4; ++i) b.next("k", clock.wall_now());
  CHECK(b.get("k") == 80s);
  clock.advance(11min);  // the container ran for 11 minutes
  const auto exited = clock.wall_now();
  CHECK_FALSE(b.in_backoff_since("k", exited));
  b.next("k", exited);
  CHECK(b.get("k") == 10s);
}

TEST_CASE("since-update backoff (image pulls)") {
  ManualClock clock;
  Backoff b(clock);
  b.next("img", clock.wall_now());
  CHECK(b.in_backoff_since_update("img"));
  clock.advance(10s);
  CHECK_FALSE(b.in_backoff_since_update("img"));
  b.gc();
  CHECK(b.get("img") == 10s);  // not idle long enough to be dropped
  clock.advance(11min);
  b.gc();
  CHECK(b.get("img") == 0s);
}

TEST_CASE("go_duration") {
  CHECK(go_duration(0s) == "0s");
  CHECK(go_duration(10s) == "10s");
  CHECK(go_duration(300s) == "5m0s");
  CHECK(go_duration(3725s) == "1h2m5s");
  CHECK(go_duration(1250ms) == "1.25s");
  CHECK(go_duration(62500ms) == "1m2.5s");
  CHECK(go_duration(512ms) == "512ms");
}

}  // namespace
}  // namespace k3c::kubelet

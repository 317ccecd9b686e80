// Upstream's event correlation: ten different messages, then one combined Event; 25 writes
// per source and object, then one per 5 minutes.
#include "client/event_correlator.h"

#include <catch2/catch.hpp>

namespace k3c::client {
namespace {

TEST_CASE("similar events are combined after ten messages, in a 10-minute window") {
  ManualClock clock;
  EventCorrelator c(clock);
  for (int i = 0; i < 9; ++i) {
    auto out = c.correlate("rs", "rs/Normal/SuccessfulCreate", "pod-" + std::to_string(i),
                           "Created pod: pod-" + std::to_string(i));
    CHECK_FALSE(out.skip);
    CHECK(out.message == "Created pod: pod-" + std::to_string(i));
    CHECK(out.dedupe_key == "pod-" + std::to_string(i));
  }
  auto tenth = c.correlate("rs", "rs/Normal/SuccessfulCreate", "pod-9", "Created pod: pod-9");
  CHECK(tenth.message == "(combined from similar events): Created pod: pod-9");
  CHECK(tenth.dedupe_key == "rs/Normal/SuccessfulCreate");
  // Each further message is combined into the same Event; another reason is not.
  CHECK(c.correlate("rs", "rs/Normal/SuccessfulCreate", "pod-10", "Created pod: pod-10")
            .dedupe_key == "rs/Normal/SuccessfulCreate");
  CHECK(c.correlate("rs", "rs/Normal/SuccessfulDelete", "d", "Deleted pod: a").dedupe_key == "d");
  // Ten quiet minutes end the aggregate.
  clock.advance(std::chrono::minutes(11));
  CHECK(c.correlate("rs", "rs/Normal/SuccessfulCreate", "pod-x", "Created pod: pod-x")
            .message == "Created pod: pod-x");
}

TEST_CASE("one source writes 25 events about one object, then one per 5 minutes") {
  ManualClock clock;
  EventCorrelator c(clock);
  int written = 0;
  for (int i = 0; i < 100; ++i) {
    if (!c.correlate("rs", "rs/Normal/SuccessfulCreate", "k" + std::to_string(i), "m").skip)
      ++written;
  }
  CHECK(written == 25);
  // Another object has a bucket of its own.
  CHECK_FALSE(c.correlate("other", "other/Normal/X", "k", "m").skip);
  clock.advance(std::chrono::minutes(4));
  CHECK(c.correlate("rs", "rs/Normal/SuccessfulCreate", "k", "m").skip);
  clock.advance(std::chrono::minutes(1));
  CHECK_FALSE(c.correlate("rs", "rs/Normal/SuccessfulCreate", "k", "m").skip);
  CHECK(c.correlate("rs", "rs/Normal/SuccessfulCreate", "k", "m").skip);
  // The bucket refills up to the burst, no further.
  clock.advance(std::chrono::hours(24));
  written = 0;
  for (int i = 0; i < 100; ++i) {
    if (!c.correlate("rs", "rs/Normal/SuccessfulCreate", "k", "m").skip) ++written;
  }
  CHECK(written == 25);
}

}  // namespace
}  // namespace k3c::client

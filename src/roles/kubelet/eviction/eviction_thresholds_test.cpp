// The eviction flags' syntax and the thresholds they make.
#include "roles/kubelet/eviction/eviction_thresholds.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;

TEST_CASE("eviction thresholds parse as upstream's flags") {
  auto parsed =
      parse_threshold_list("memory.available<100Mi, nodefs.available<10%,pid.available<1k");
  REQUIRE(parsed.is_ok());
  CHECK(parsed->size() == 3);
  CHECK(parsed->at(Signal::kMemoryAvailable).quantity->to_string() == "100Mi");
  CHECK(parsed->at(Signal::kNodeFsAvailable).percentage == Approx(0.10));
  CHECK(parsed->at(Signal::kPidAvailable).quantity->value() == 1000);
  // 0% and 100% say nothing, as upstream ignores them.
  CHECK(parse_threshold_list("memory.available<0%,nodefs.available<100%")->empty());

  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& bad : {
           Bad{"memory.free<1Mi", "unsupported eviction signal memory.free"},
           Bad{"memory.available=1Mi", "expected SIGNAL<VALUE, got memory.available=1Mi"},
           Bad{"memory.available<0", "eviction threshold memory.available must be positive: 0"},
           Bad{"memory.available<-5Mi",
               "eviction threshold memory.available must be positive: -5Mi"},
           Bad{"memory.available<lots", "invalid threshold quantity memory.available: lots"},
           Bad{"nodefs.available<120%",
               "eviction percentage threshold nodefs.available must be <= 100%: 120%"},
           Bad{"nodefs.available<-1%",
               "eviction percentage threshold nodefs.available must be >= 0%: -1%"},
           Bad{"nodefs.available<x%", "invalid threshold percentage nodefs.available: x%"},
       }) {
    INFO(bad.text);
    auto r = parse_threshold_list(bad.text);
    REQUIRE_FALSE(r.is_ok());
    CHECK(r.status().message() == bad.message);
  }
}

TEST_CASE("grace periods and minimum reclaims parse as upstream's") {
  auto grace = parse_grace_period_list("memory.available=1m30s,nodefs.available=20s");
  REQUIRE(grace.is_ok());
  CHECK(grace->at(Signal::kMemoryAvailable) == 90s);
  CHECK(grace->at(Signal::kNodeFsAvailable) == 20s);
  CHECK(parse_grace_period_list("memory.available=soon").status().message() ==
        "invalid eviction grace period specified for memory.available: soon, must be a positive "
        "duration");
  CHECK_FALSE(parse_grace_period_list("memory.available=0s").is_ok());
  auto reclaim = parse_minimum_reclaim_list("memory.available=500Mi,imagefs.available=2%");
  REQUIRE(reclaim.is_ok());
  CHECK(reclaim->at(Signal::kMemoryAvailable).quantity->to_string() == "500Mi");
  CHECK(reclaim->at(Signal::kImageFsAvailable).percentage == Approx(0.02));
  CHECK(parse_minimum_reclaim_list("memory.available=0").status().message() ==
        "eviction minimum reclaim memory.available must be positive: 0");
}

TEST_CASE("the thresholds: upstream's hard defaults, soft ones with their grace periods") {
  EvictionSettings settings;
  auto defaults = eviction_thresholds(settings);
  REQUIRE(defaults.is_ok());
  REQUIRE(defaults->size() == 4);
  for (const Threshold& t : *defaults) CHECK(t.hard());
  CHECK((*defaults)[0].signal == Signal::kMemoryAvailable);
  CHECK((*defaults)[0].value.quantity->to_string() == "100Mi");
  CHECK((*defaults)[3].signal == Signal::kImageFsAvailable);
  CHECK((*defaults)[3].value.percentage == Approx(0.15));

  // A given eviction-hard replaces the defaults.
  settings.hard = *parse_threshold_list("memory.available<1Gi");
  settings.soft = *parse_threshold_list("memory.available<2Gi");
  settings.minimum_reclaim = *parse_minimum_reclaim_list("memory.available=100Mi");
  CHECK(eviction_thresholds(settings).status().message() ==
        "grace period must be specified for the soft eviction threshold memory.available");
  settings.soft_grace_period = *parse_grace_period_list("memory.available=1m");
  auto both = eviction_thresholds(settings);
  REQUIRE(both.is_ok());
  REQUIRE(both->size() == 2);
  CHECK((*both)[0].hard());
  CHECK_FALSE((*both)[1].hard());
  CHECK((*both)[1].grace_period == 1min);
  CHECK((*both)[1].min_reclaim->quantity->to_string() == "100Mi");
  settings.soft_grace_period[Signal::kPidAvailable] = 1min;
  CHECK(eviction_thresholds(settings).status().message() ==
        "eviction-soft-grace-period names pid.available, which has no eviction-soft threshold");
}

TEST_CASE("a percentage threshold is its share of the capacity") {
  CHECK(threshold_quantity({std::nullopt, 0.10}, 10LL << 30).to_string() == "1Gi");
  CHECK(threshold_quantity({api::Quantity::parse("100Mi"), 0}, 1).to_string() == "100Mi");
  CHECK(signal_condition(Signal::kImageFsInodesFree) == "DiskPressure");
  CHECK(signal_resource(Signal::kPidAvailable) == "pids");
  CHECK(signal_from_name("nodefs.inodesFree") == Signal::kNodeFsInodesFree);
}

}  // namespace
}  // namespace k3c::kubelet

// The scheduler's cache: informer events keep the snapshot current; assumed pods count until
// the informer confirms them or the scheduler forgets them.
#include "roles/scheduler/role/scheduler_cache.h"

#include <catch2/catch.hpp>

#include "roles/scheduler/schedule.h"
#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

int64_t requested_cpu(const SchedulerCache& cache, const std::string& node) {
  return cache.read([&](const Snapshot& s) {
    const NodeInfo* n = s.find(node);
    return n ? n->requested().milli_cpu : -1;
  });
}

size_t pods_on(const SchedulerCache& cache, const std::string& node) {
  return cache.read([&](const Snapshot& s) {
    const NodeInfo* n = s.find(node);
    return n ? n->pods().size() : size_t{0};
  });
}

TEST_CASE("assumed pods count on their node until forgotten or confirmed") {
  SchedulerCache cache;
  cache.add_or_update_node(NodeBuilder("n1").allocatable("cpu", "1").build());
  PodPtr pending = PodBuilder("a").request("cpu", "800m").build();
  auto assumed = std::make_shared<PodInfo>(*pending);
  assumed->node_name = "n1";
  cache.assume(assumed);
  CHECK(cache.is_assumed(pending->uid));
  CHECK(requested_cpu(cache, "n1") == 800);

  // A second pod of the same size no longer fits: no overcommit between two quick decisions.
  PodPtr second = PodBuilder("b").request("cpu", "800m").build();
  ScheduleResult r = cache.read([&](const Snapshot& s) { return schedule(s, *second); });
  CHECK_FALSE(r.scheduled());
  CHECK(fit_error_message(1, r.diagnosis) == "0/1 nodes are available: 1 Insufficient cpu.");

  SECTION("forget: the binding failed") {
    cache.forget(pending->uid);
    CHECK_FALSE(cache.is_assumed(pending->uid));
    CHECK(requested_cpu(cache, "n1") == 0);
    CHECK(cache.pod_count() == 0);
  }
  SECTION("confirmed by the informer: counted once, forget no longer removes it") {
    cache.add_or_update_pod(PodBuilder("a").request("cpu", "800m").node("n1").build());
    CHECK_FALSE(cache.is_assumed(pending->uid));
    CHECK(pods_on(cache, "n1") == 1);
    CHECK(requested_cpu(cache, "n1") == 800);
    cache.forget(pending->uid);
    CHECK(requested_cpu(cache, "n1") == 800);
  }
  SECTION("deleted before the informer saw it bound") {
    cache.remove_pod(pending->uid);
    CHECK(requested_cpu(cache, "n1") == 0);
  }
}

TEST_CASE("pods of a node the cache does not know yet count once the node arrives") {
  SchedulerCache cache;
  cache.add_or_update_pod(PodBuilder("a").request("cpu", "1").node("n1").build());
  CHECK(cache.read([](const Snapshot& s) { return s.size(); }) == 0);
  cache.add_or_update_node(NodeBuilder("n1").build());
  CHECK(requested_cpu(cache, "n1") == 1000);

  // A node update keeps its pods; a node that goes and comes back gets them again.
  cache.add_or_update_node(NodeBuilder("n1").label("x", "y").build());
  CHECK(pods_on(cache, "n1") == 1);
  cache.remove_node("n1");
  CHECK(requested_cpu(cache, "n1") == -1);
  cache.add_or_update_node(NodeBuilder("n1").build());
  CHECK(requested_cpu(cache, "n1") == 1000);
}

TEST_CASE("a pod that moves or changes is counted where and as it is now") {
  SchedulerCache cache;
  cache.add_or_update_node(NodeBuilder("n1").build());
  cache.add_or_update_node(NodeBuilder("n2").build());
  cache.add_or_update_pod(PodBuilder("a").request("cpu", "1").node("n1").build());
  cache.add_or_update_pod(PodBuilder("a").request("cpu", "2").node("n1").build());
  CHECK(requested_cpu(cache, "n1") == 2000);
  cache.add_or_update_pod(PodBuilder("a").request("cpu", "2").node("n2").build());
  CHECK(requested_cpu(cache, "n1") == 0);
  CHECK(requested_cpu(cache, "n2") == 2000);
  cache.remove_pod("default-a");
  CHECK(requested_cpu(cache, "n2") == 0);
  CHECK(cache.pod_count() == 0);
}

}  // namespace
}  // namespace k3c::scheduler

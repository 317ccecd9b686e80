// The kubelet's resource arithmetic against upstream's figures (pkg/kubelet/cm
// helpers_linux_test.go semantics) and the v1 -> v2 weight conversion.
#include "runtime/cgroups/resource_math.h"

#include <catch2/catch.hpp>

namespace k3c::runtime {
namespace {

TEST_CASE("milli-CPU to shares: minimum 2, 1024 per CPU, capped at 262144") {
  struct Case {
    int64_t milli, shares;
  };
  for (auto [milli, shares] :
       {Case{0, 2}, Case{1, 2}, Case{1, 2}, Case{2, 2}, Case{3, 3}, Case{100, 102}, Case{250, 256},
        Case{500, 512}, Case{1000, 1024}, Case{1500, 1536}, Case{256000, 262144},
        Case{300000, 262144}, Case{INT64_MAX, 262144}, Case{-5, 2}}) {
    INFO(milli);
    CHECK(milli_cpu_to_shares(milli) == shares);
  }
}

TEST_CASE("milli-CPU to quota: none for 0, 1 ms minimum, per 100 ms period") {
  struct Case {
    int64_t milli, period, quota;
  };
  for (auto [milli, period, quota] :
       {Case{0, 100000, 0}, Case{5, 100000, 1000}, Case{9, 100000, 1000}, Case{10, 100000, 1000},
        Case{200, 100000, 20000}, Case{500, 100000, 50000}, Case{1000, 100000, 100000},
        Case{1500, 100000, 150000}, Case{2000, 50000, 100000}, Case{-1, 100000, 0}}) {
    INFO(milli << " over " << period);
    CHECK(milli_cpu_to_quota(milli, period) == quota);
  }
  CHECK(milli_cpu_to_quota(INT64_MAX) > 0);  // no overflow
}

TEST_CASE("shares to cgroup v2 weight as runc and crun convert them") {
  CHECK(shares_to_weight(0) == 0);  // unset stays unset
  CHECK(shares_to_weight(2) == 1);
  CHECK(shares_to_weight(102) == 4);
  CHECK(shares_to_weight(1024) == 39);
  CHECK(shares_to_weight(262144) == 10000);
  CHECK(shares_to_weight(1 << 30) == 10000);
}

TEST_CASE("container and pod resources") {
  LinuxResources c = container_linux_resources(250, 500, 128 << 20);
  CHECK(c.cpu_shares == 256);
  CHECK(c.cpu_quota_us == 50000);
  CHECK(c.cpu_period_us == 100000);
  CHECK(c.memory_limit_bytes == 128 << 20);
  // Only a limit: the shares follow the limit (older pods whose requests were not defaulted).
  CHECK(container_linux_resources(0, 2000, 0).cpu_shares == 2048);
  // Nothing: least shares, no quota, no memory limit.
  LinuxResources none = container_linux_resources(0, 0, 0);
  CHECK(none.cpu_shares == 2);
  CHECK(none.cpu_quota_us == 0);
  CHECK(none.memory_limit_bytes == 0);

  LinuxResources pod = pod_linux_resources(0, 1000, 0);
  CHECK(pod.cpu_shares == 2);  // a pod's shares follow its requests only
  CHECK(pod.cpu_quota_us == 100000);
  CHECK(pod_linux_resources(1500, 0, 1 << 30).memory_limit_bytes == 1 << 30);
}

}  // namespace
}  // namespace k3c::runtime

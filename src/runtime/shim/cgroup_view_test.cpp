// plan_cgroup_view over the mountinfo and /proc/self/cgroup of v2, v1 and hybrid hosts. The
// mounts themselves are tested on this machine's (hybrid) layout in linux_runtime_test.cpp.
#include "runtime/shim/cgroup_view.h"

#include <catch2/catch.hpp>

namespace k3c::runtime::shim {
namespace {

constexpr char kUnifiedMountinfo[] =
    "22 1 0:21 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "26 22 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n"
    "30 1 0:26 / /var/lib/k3c/c1/rootfs rw,relatime - overlay overlay rw,lowerdir=/a\n";

// A systemd hybrid host: co-mounted cpu,cpuacct and net_cls,net_prio with their links, the
// named systemd hierarchy, the empty cgroup2 at unified.
constexpr char kHybridMountinfo[] =
    "25 22 0:22 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:8 - tmpfs tmpfs ro,mode=755\n"
    "26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
    "27 25 0:24 / /sys/fs/cgroup/systemd rw,nosuid shared:10 - cgroup cgroup "
    "rw,xattr,name=systemd\n"
    "31 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:14 - cgroup cgroup "
    "rw,cpu,cpuacct\n"
    "32 25 0:29 / /sys/fs/cgroup/memory rw,nosuid shared:15 - cgroup cgroup rw,memory\n"
    "33 25 0:30 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid shared:16 - cgroup cgroup "
    "rw,net_cls,net_prio\n";

constexpr char kHybridCgroup[] =
    "12:net_cls,net_prio:/\n"
    "6:memory:/kubepods/burstable/pod1/c1\n"
    "4:cpu,cpuacct:/kubepods/burstable/pod1/c1\n"
    "1:name=systemd:/system.slice/k3c.service\n"
    "0::/system.slice/k3c.service\n";

}  // namespace

TEST_CASE("cgroup v2: a new cgroup namespace and a read-only cgroup2, privileged neither") {
  auto view = plan_cgroup_view(kUnifiedMountinfo, "0::/kubepods/pod1/c1\n", false);
  REQUIRE(view.is_ok());
  CHECK(view->kind == CgroupView::Kind::kUnified);
  CHECK(view->new_namespace);
  CHECK(view->read_only);
  CHECK(view->binds.empty());

  auto privileged = plan_cgroup_view(kUnifiedMountinfo, "0::/kubepods/pod1/c1\n", true);
  REQUIRE(privileged.is_ok());
  CHECK(privileged->kind == CgroupView::Kind::kUnified);
  CHECK_FALSE(privileged->new_namespace);  // containerd: no cgroupns for privileged
  CHECK_FALSE(privileged->read_only);
}

TEST_CASE("cgroup v1 / hybrid: the container's own directory per hierarchy, co-mount links") {
  auto view = plan_cgroup_view(kHybridMountinfo, kHybridCgroup, false);
  REQUIRE(view.is_ok());
  CHECK(view->kind == CgroupView::Kind::kPerHierarchy);
  CHECK_FALSE(view->new_namespace);
  CHECK(view->read_only);
  std::vector<std::pair<std::string, std::string>> binds;
  for (const CgroupBind& b : view->binds) binds.emplace_back(b.name, b.host_dir);
  CHECK(binds == std::vector<std::pair<std::string, std::string>>{
                     {"cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct/kubepods/burstable/pod1/c1"},
                     {"memory", "/sys/fs/cgroup/memory/kubepods/burstable/pod1/c1"},
                     {"net_cls,net_prio", "/sys/fs/cgroup/net_cls,net_prio"},
                     {"systemd", "/sys/fs/cgroup/systemd/system.slice/k3c.service"}});
  CHECK(view->links ==
        std::vector<std::pair<std::string, std::string>>{{"cpu", "cpu,cpuacct"},
                                                         {"cpuacct", "cpu,cpuacct"},
                                                         {"net_cls", "net_cls,net_prio"},
                                                         {"net_prio", "net_cls,net_prio"}});

  auto privileged = plan_cgroup_view(kHybridMountinfo, kHybridCgroup, true);
  REQUIRE(privileged.is_ok());
  CHECK_FALSE(privileged->read_only);
  CHECK_FALSE(privileged->new_namespace);
}

TEST_CASE("cgroup v1: separate cpu and cpuacct mounts get no links; mount roots are honoured") {
  // This machine's layout: no co-mounts, and a host whose memory hierarchy is mounted from
  // a sub-cgroup (a nested host) with the process inside it.
  const char mountinfo[] =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
      "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
      "35 31 0:32 /outer /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  const char own[] = "4:memory:/outer/k3c/c1\n2:cpuacct:/k3c/c1\n1:cpu:/k3c/c1\n0::/\n";
  auto view = plan_cgroup_view(mountinfo, own, false);
  REQUIRE(view.is_ok());
  REQUIRE(view->binds.size() == 3);
  CHECK(view->binds[0].host_dir == "/sys/fs/cgroup/cpu/k3c/c1");
  CHECK(view->binds[1].host_dir == "/sys/fs/cgroup/cpuacct/k3c/c1");
  CHECK(view->binds[2].host_dir == "/sys/fs/cgroup/memory/k3c/c1");
  CHECK(view->links.empty());

  // A cgroup outside what is mounted cannot be shown; one not listed at all neither.
  auto outside = plan_cgroup_view(mountinfo, "4:memory:/other/c1\n2:cpuacct:/\n1:cpu:/\n", false);
  CHECK(outside.status().code() == Code::kInternal);
  auto missing = plan_cgroup_view(mountinfo, "2:cpuacct:/\n1:cpu:/\n", false);
  CHECK(missing.status().code() == Code::kInternal);
}

TEST_CASE("no cgroups at /sys/fs/cgroup: nothing to show") {
  auto view = plan_cgroup_view("22 1 0:21 / /sys rw - sysfs sysfs rw\n", "0::/\n", false);
  REQUIRE(view.is_ok());
  CHECK(view->kind == CgroupView::Kind::kNone);
}

}  // namespace k3c::runtime::shim

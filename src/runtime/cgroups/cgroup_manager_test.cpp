// The cgroup manager over the in-memory cgroupfs (test/fakes/fake_cgroup_os.h): layouts v2,
// v1 and hybrid, the files each setting lands in, controller delegation in v2, stats, killing
// and removal, and the errors (missing controller, memory below usage, busy cgroups).
#include "runtime/cgroups/cgroup_manager.h"

#include <signal.h>

#include <catch2/catch.hpp>

#include "fakes/fake_cgroup_os.h"

namespace k3c::runtime {
namespace {

using testing::FakeCgroupOs;

const std::string kRoot = "/sys/fs/cgroup";

std::unique_ptr<CgroupManager> manager(const std::shared_ptr<FakeCgroupOs>& fs,
                                       const std::string& root = kRoot) {
  auto m = CgroupManager::detect(fs, root);
  REQUIRE(m.is_ok());
  return std::move(m).value();
}

LinuxResources limits(int64_t shares, int64_t quota, int64_t memory, int64_t pids) {
  LinuxResources r;
  r.cpu_shares = shares;
  r.cpu_quota_us = quota;
  r.memory_limit_bytes = memory;
  r.pids_limit = pids;
  return r;
}

const std::string kPod = "kubepods/burstable/pod1";
const std::string kContainer = "kubepods/burstable/pod1/c1";

TEST_CASE("v2: create enables controllers down the path and writes every limit") {
  auto fs = FakeCgroupOs::v2();
  auto m = manager(fs);
  CHECK(m->unified());
  CHECK(m->controllers() == std::vector<std::string>{"cpu", "memory", "pids"});
  CHECK(m->describe() == "cgroup v2 at /sys/fs/cgroup (cpu memory pids)");

  REQUIRE(m->create(kContainer, limits(512, 50000, 64 << 20, 100)).is_ok());
  for (const std::string& dir : std::vector<std::string>{
           kRoot, kRoot + "/kubepods", kRoot + "/kubepods/burstable", kRoot + "/" + kPod}) {
    INFO(dir);
    CHECK(fs->file(dir + "/cgroup.subtree_control") == "cpu memory pids");
  }
  const std::string leaf = kRoot + "/" + kContainer;
  CHECK(fs->file(leaf + "/cgroup.subtree_control").empty());  // it will hold processes
  CHECK(fs->file(leaf + "/cpu.weight") == "20");              // 1 + 510 * 9999 / 262142
  CHECK(fs->file(leaf + "/cpu.max") == "50000 100000");
  CHECK(fs->file(leaf + "/memory.max") == "67108864");
  CHECK(fs->file(leaf + "/pids.max") == "100");
  CHECK(m->procs_files(kContainer) == std::vector<std::string>{leaf + "/cgroup.procs"});

  // Creating a sibling writes no subtree_control again (a parent may hold processes by then).
  const size_t writes = fs->write_log.size();
  REQUIRE(m->create(kPod + "/c2", LinuxResources{}).is_ok());
  for (size_t i = writes; i < fs->write_log.size(); ++i) {
    CHECK(fs->write_log[i].first.find("subtree_control") == std::string::npos);
  }
  CHECK(fs->file(kRoot + "/" + kPod + "/c2/cpu.weight") == "100");  // shares 0: kernel default
  CHECK(fs->file(kRoot + "/" + kPod + "/c2/cpu.max") == "max 100000");
}

TEST_CASE("v2: update lifts limits with max and keeps the weight when shares are unset") {
  auto fs = FakeCgroupOs::v2();
  auto m = manager(fs);
  REQUIRE(m->create(kContainer, limits(1024, 20000, 1 << 20, 10)).is_ok());
  REQUIRE(m->update(kContainer, limits(0, 0, 0, 0)).is_ok());
  const std::string leaf = kRoot + "/" + kContainer;
  CHECK(fs->file(leaf + "/cpu.weight") == "39");
  CHECK(fs->file(leaf + "/cpu.max") == "max 100000");
  CHECK(fs->file(leaf + "/memory.max") == "max");
  CHECK(fs->file(leaf + "/pids.max") == "max");
  CHECK(m->update("kubepods/nope", LinuxResources{}).code() == Code::kNotFound);
}

TEST_CASE("v2: a limit whose controller is missing is refused before anything is created") {
  auto fs = FakeCgroupOs::v2(kRoot, {"cpu", "pids"});
  auto m = manager(fs);
  Status s = m->create(kContainer, limits(0, 0, 1 << 20, 0));
  CHECK(s.code() == Code::kInvalid);
  CHECK(s.message() ==
        "cgroup controller \"memory\" is not available on this host (cgroup v2 at "
        "/sys/fs/cgroup (cpu pids))");
  CHECK_FALSE(fs->has(kRoot + "/kubepods"));
  // Without a memory limit it works, and memory stats read as zero.
  REQUIRE(m->create(kContainer, limits(2, 0, 0, 5)).is_ok());
  CHECK(fs->file(kRoot + "/kubepods/cgroup.subtree_control") == "cpu pids");
  auto stats = m->stats(kContainer);
  REQUIRE(stats.is_ok());
  CHECK(stats->memory_usage_bytes == 0);
}

TEST_CASE("v2: a parent holding processes cannot delegate controllers: a clear error") {
  auto fs = FakeCgroupOs::v2();
  auto m = manager(fs);
  REQUIRE(m->create(kPod, LinuxResources{}).is_ok());
  fs->add_process(kRoot + "/" + kPod, 42);
  Status s = m->create(kContainer, LinuxResources{});
  CHECK(s.code() == Code::kInternal);
  CHECK(s.message().find("(the cgroup has processes of its own)") != std::string::npos);
  CHECK(s.message().find(kRoot + "/" + kPod) != std::string::npos);
}

TEST_CASE("v1: every managed hierarchy gets the cgroup; others are left alone") {
  auto fs = FakeCgroupOs::v1();
  auto m = manager(fs);
  CHECK_FALSE(m->unified());
  CHECK(m->controllers() ==
        std::vector<std::string>{"cpu", "cpuacct", "freezer", "memory", "pids"});
  REQUIRE(m->create(kContainer, limits(512, 50000, 64 << 20, 100)).is_ok());
  const std::string cpu = kRoot + "/cpu,cpuacct/" + kContainer;
  CHECK(fs->file(cpu + "/cpu.shares") == "512");
  CHECK(fs->file(cpu + "/cpu.cfs_period_us") == "100000");
  CHECK(fs->file(cpu + "/cpu.cfs_quota_us") == "50000");
  CHECK(fs->file(kRoot + "/memory/" + kContainer + "/memory.limit_in_bytes") == "67108864");
  CHECK(fs->file(kRoot + "/pids/" + kContainer + "/pids.max") == "100");
  CHECK(fs->file(kRoot + "/freezer/" + kContainer + "/freezer.state") == "THAWED");
  CHECK_FALSE(fs->has(kRoot + "/devices/kubepods"));
  CHECK_FALSE(fs->has(kRoot + "/systemd/kubepods"));
  // The co-mount is one hierarchy although "cpu" and "cpuacct" link to it.
  CHECK(m->procs_files(kContainer) ==
        std::vector<std::string>{cpu + "/cgroup.procs",
                                 kRoot + "/freezer/" + kContainer + "/cgroup.procs",
                                 kRoot + "/memory/" + kContainer + "/cgroup.procs",
                                 kRoot + "/pids/" + kContainer + "/cgroup.procs"});

  REQUIRE(m->update(kContainer, limits(2, 0, 0, 0)).is_ok());
  CHECK(fs->file(cpu + "/cpu.shares") == "2");
  CHECK(fs->file(cpu + "/cpu.cfs_quota_us") == "-1");
  CHECK(fs->file(kRoot + "/memory/" + kContainer + "/memory.limit_in_bytes") == "-1");
  CHECK(fs->file(kRoot + "/pids/" + kContainer + "/pids.max") == "max");
}

TEST_CASE("add_process writes the pid into the cgroup of every hierarchy") {
  auto fs = FakeCgroupOs::v1();
  auto m = manager(fs);
  REQUIRE(m->create(kContainer, limits(0, 0, 0, 0)).is_ok());
  REQUIRE(m->add_process(kContainer, 4242).is_ok());
  for (const std::string& procs : m->procs_files(kContainer)) {
    INFO(procs);
    CHECK(fs->file(procs) == "4242\n");
  }
  CHECK(m->add_process("../escape", 1).code() == Code::kInvalid);
}

TEST_CASE("hybrid: v1 controllers are used, the empty v2 hierarchy is ignored") {
  // As on this project's machines: cpu and cpuacct mounted apart, cgroup2 at unified.
  auto fs = FakeCgroupOs::v1(kRoot, {"cpu", "cpuacct", "memory", "pids", "freezer", "blkio"}, true);
  auto m = manager(fs);
  CHECK_FALSE(m->unified());
  CHECK(m->describe() == "cgroup v1 under /sys/fs/cgroup (cpu cpuacct freezer memory pids)");
  REQUIRE(m->create(kContainer, limits(100, 0, 0, 0)).is_ok());
  CHECK(fs->file(kRoot + "/cpu/" + kContainer + "/cpu.shares") == "100");
  CHECK(fs->has(kRoot + "/cpuacct/" + kContainer));
  CHECK_FALSE(fs->has(kRoot + "/unified/kubepods"));
  CHECK(m->procs_files(kContainer).size() == 5);

  fs->set(kRoot + "/cpuacct/" + kContainer + "/cpuacct.usage", "123456789");
  auto stats = m->stats(kContainer);
  REQUIRE(stats.is_ok());
  CHECK(stats->cpu_usage_nanos == 123456789);
}

TEST_CASE("detect: where there are no cgroups, and a host with only the v2 hierarchy") {
  CHECK(CgroupManager::detect(FakeCgroupOs::v2(), "/nowhere").status().code() == Code::kNotFound);
  auto bare = FakeCgroupOs::v1(kRoot, {});
  auto none = CgroupManager::detect(bare, kRoot);
  CHECK(none.status().code() == Code::kNotFound);
  CHECK(none.status().message().find("no cgroup hierarchies under /sys/fs/cgroup") == 0);
  auto only_unified = FakeCgroupOs::v1(kRoot, {}, true);
  only_unified->set(kRoot + "/unified/cgroup.controllers", "cpu memory pids");
  auto m = manager(only_unified);
  CHECK(m->unified());
  CHECK(m->procs_files("x") == std::vector<std::string>{kRoot + "/unified/x/cgroup.procs"});
}

TEST_CASE("a memory limit below the current usage is refused with the figures") {
  SECTION("v2") {
    auto fs = FakeCgroupOs::v2();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, limits(0, 0, 200 << 20, 0)).is_ok());
    fs->set(kRoot + "/" + kContainer + "/memory.current", std::to_string(100 << 20));
    Status s = m->update(kContainer, limits(0, 0, 64 << 20, 0));
    CHECK(s.code() == Code::kInvalid);
    CHECK(s.message() ==
          "memory limit of 67108864 bytes is below the current usage of 104857600 bytes of "
          "cgroup kubepods/burstable/pod1/c1");
    CHECK(fs->file(kRoot + "/" + kContainer + "/memory.max") == "209715200");  // unchanged
  }
  SECTION("v1, also when the kernel refuses (EBUSY) after the check") {
    auto fs = FakeCgroupOs::v1();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    const std::string dir = kRoot + "/memory/" + kContainer;
    fs->set(dir + "/memory.usage_in_bytes", "5000");
    CHECK(m->update(kContainer, limits(0, 0, 4096, 0)).code() == Code::kInvalid);
    fs->set(dir + "/memory.usage_in_bytes", "0");
    fs->write_errors[dir + "/memory.limit_in_bytes"] = EBUSY;
    Status s = m->update(kContainer, limits(0, 0, 4096, 0));
    CHECK(s.code() == Code::kInvalid);
    CHECK(s.message() ==
          "memory limit of 4096 bytes is below the current usage of cgroup "
          "kubepods/burstable/pod1/c1 and could not be reclaimed");
  }
}

TEST_CASE("stats read usage, working set, OOM kills and pids") {
  SECTION("v2") {
    auto fs = FakeCgroupOs::v2();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    const std::string dir = kRoot + "/" + kContainer;
    fs->set(dir + "/cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
    fs->set(dir + "/memory.current", "10000\n");
    fs->set(dir + "/memory.stat", "anon 7000\nfile 3000\nactive_file 500\ninactive_file 2500\n");
    fs->set(dir + "/memory.events", "low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\n");
    fs->set(dir + "/pids.current", "3\n");
    auto s = m->stats(kContainer);
    REQUIRE(s.is_ok());
    CHECK(s->cpu_usage_nanos == 1500000);
    CHECK(s->memory_usage_bytes == 10000);
    CHECK(s->memory_working_set_bytes == 7500);
    CHECK(s->oom_kills == 2);
    CHECK(s->pids_current == 3);
    fs->set(dir + "/memory.stat", "inactive_file 20000\n");
    CHECK(m->stats(kContainer)->memory_working_set_bytes == 0);  // clamped
  }
  SECTION("v1") {
    auto fs = FakeCgroupOs::v1();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    fs->set(kRoot + "/cpu,cpuacct/" + kContainer + "/cpuacct.usage", "987654321\n");
    const std::string mem = kRoot + "/memory/" + kContainer;
    fs->set(mem + "/memory.usage_in_bytes", "8192\n");
    fs->set(mem + "/memory.stat", "inactive_file 100\ntotal_inactive_file 4096\n");
    fs->set(mem + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
    fs->set(kRoot + "/pids/" + kContainer + "/pids.current", "7");
    auto s = m->stats(kContainer);
    REQUIRE(s.is_ok());
    CHECK(s->cpu_usage_nanos == 987654321);
    CHECK(s->memory_usage_bytes == 8192);
    CHECK(s->memory_working_set_bytes == 4096);
    CHECK(s->oom_kills == 1);
    CHECK(s->pids_current == 7);
  }
  auto m = manager(FakeCgroupOs::v2());
  CHECK(m->stats("kubepods/none").status().code() == Code::kNotFound);
}

TEST_CASE("kill_all: cgroup.kill, freeze-and-signal, and rounds without a freezer") {
  SECTION("v2 with cgroup.kill: one write, no signals") {
    auto fs = FakeCgroupOs::v2();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer + "/sub", LinuxResources{}).is_ok());
    fs->add_process(kRoot + "/" + kContainer + "/sub", 11);
    REQUIRE(m->kill_all(kPod).is_ok());
    CHECK(fs->processes(kRoot + "/" + kContainer + "/sub").empty());
    CHECK(fs->signals.size() == 1);  // the fake's own kill for cgroup.kill
    CHECK(fs->write_log.back() ==
          std::pair<std::string, std::string>{kRoot + "/" + kPod + "/cgroup.kill", "1"});
  }
  SECTION("v2 without cgroup.kill: frozen, each process signalled, thawed") {
    auto fs = FakeCgroupOs::v2(kRoot, {"cpu", "memory", "pids"}, /*with_kill=*/false);
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    fs->add_process(kRoot + "/" + kContainer, 21);
    fs->add_process(kRoot + "/" + kContainer, 22);
    REQUIRE(m->kill_all(kContainer).is_ok());
    CHECK(fs->signals == std::vector<std::pair<pid_t, int>>{{21, SIGKILL}, {22, SIGKILL}});
    CHECK(fs->file(kRoot + "/" + kContainer + "/cgroup.freeze") == "0");
    CHECK(std::count(fs->write_log.begin(), fs->write_log.end(),
                     std::pair<std::string, std::string>{
                         kRoot + "/" + kContainer + "/cgroup.freeze", "1"}) == 1);
  }
  SECTION("v1: the freezer settles, every hierarchy's processes are signalled once, thawed") {
    auto fs = FakeCgroupOs::v1();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    for (const char* h : {"/cpu,cpuacct/", "/memory/", "/pids/", "/freezer/"}) {
      fs->add_process(kRoot + h + kContainer, 31);
    }
    fs->add_process(kRoot + "/memory/" + kContainer, 32);
    fs->freezing_reads = 3;
    REQUIRE(m->kill_all(kPod).is_ok());
    CHECK(fs->signals == std::vector<std::pair<pid_t, int>>{{31, SIGKILL}, {32, SIGKILL}});
    CHECK(fs->sleeps == 3);  // waited for FREEZING -> FROZEN
    CHECK(fs->file(kRoot + "/freezer/" + kPod + "/freezer.state") == "THAWED");
  }
  SECTION("v1 without a freezer: rounds until no new process shows up") {
    auto fs = FakeCgroupOs::v1(kRoot, {"cpu,cpuacct", "memory"});
    fs->kill_removes = false;  // killed processes linger while they exit
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    fs->add_process(kRoot + "/memory/" + kContainer, 41);
    REQUIRE(m->kill_all(kContainer).is_ok());
    CHECK(fs->signals == std::vector<std::pair<pid_t, int>>{{41, SIGKILL}});
    CHECK(fs->sleeps == 1);
  }
  auto m = manager(FakeCgroupOs::v2());
  CHECK(m->kill_all("kubepods/gone").is_ok());
  CHECK(m->kill_all("../etc").code() == Code::kInvalid);
}

TEST_CASE("remove: deepest first in every hierarchy, retried while busy, fine when gone") {
  SECTION("v1 with a busy leaf") {
    auto fs = FakeCgroupOs::v1();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer + "/sub", LinuxResources{}).is_ok());
    fs->busy_rmdirs[kRoot + "/memory/" + kContainer + "/sub"] = 3;
    REQUIRE(m->remove(kContainer).is_ok());
    CHECK(fs->sleeps == 3);
    for (const char* h : {"/cpu,cpuacct/", "/freezer/", "/memory/", "/pids/"}) {
      CHECK_FALSE(fs->has(kRoot + h + kContainer));
      CHECK(fs->has(kRoot + h + kPod));  // parents stay
    }
    CHECK(fs->removed.front() == kRoot + "/cpu,cpuacct/" + kContainer + "/sub");
    CHECK(m->remove(kContainer).is_ok());  // already gone
  }
  SECTION("v2 with a process that does not leave") {
    auto fs = FakeCgroupOs::v2();
    auto m = manager(fs);
    REQUIRE(m->create(kContainer, LinuxResources{}).is_ok());
    fs->add_process(kRoot + "/" + kContainer, 51);
    Status s = m->remove(kPod);
    CHECK(s.code() == Code::kConflict);
    CHECK(s.message() ==
          "remove cgroup " + kRoot + "/" + kContainer + ": processes are still in it after 1000ms");
    REQUIRE(m->kill_all(kPod).is_ok());
    REQUIRE(m->remove(kPod).is_ok());
    CHECK_FALSE(fs->has(kRoot + "/" + kPod));
  }
}

TEST_CASE("children lists child cgroups of any hierarchy") {
  auto fs = FakeCgroupOs::v1();
  auto m = manager(fs);
  REQUIRE(m->create(kPod + "/c2", LinuxResources{}).is_ok());
  REQUIRE(m->create(kPod + "/c1", LinuxResources{}).is_ok());
  REQUIRE(fs->make_dir(kRoot + "/memory/" + kPod + "/stray") == 0);
  CHECK(*m->children(kPod) == std::vector<std::string>{"c1", "c2", "stray"});
  CHECK(*m->children("") == std::vector<std::string>{"kubepods"});
  CHECK(m->children("kubepods/none").status().code() == Code::kNotFound);
}

TEST_CASE("bad paths and resources are refused; a failed create leaves no half-made cgroup") {
  auto fs = FakeCgroupOs::v2();
  auto m = manager(fs);
  for (const std::string& bad : std::vector<std::string>{
           "", "/kubepods", "../x", "a/../b", "a/./b", "a//b", "a/", "a b", std::string("a\nb")}) {
    INFO(bad);
    CHECK(m->create(bad, LinuxResources{}).code() == Code::kInvalid);
    CHECK(m->remove(bad).code() == Code::kInvalid);
  }
  CHECK(m->create("x", limits(1, 0, 0, 0)).message() ==
        "invalid resources: cpu shares 1 outside [2, 262144]");
  CHECK(m->create("x", limits(0, 500, 0, 0)).message() ==
        "invalid resources: cpu quota 500us below the minimum of 1000us");
  CHECK(m->create("x", limits(0, 0, -1, 0)).code() == Code::kInvalid);
  CHECK_FALSE(fs->has(kRoot + "/x"));

  fs->write_errors[kRoot + "/" + kContainer + "/pids.max"] = EINVAL;
  Status s = m->create(kContainer, limits(0, 0, 0, 5));
  CHECK(s.code() == Code::kInvalid);
  CHECK(s.message() ==
        "write \"5\" to " + kRoot + "/" + kContainer + "/pids.max: Invalid argument");
  CHECK_FALSE(fs->has(kRoot + "/" + kContainer));
  CHECK(fs->has(kRoot + "/" + kPod));
}

TEST_CASE("thaw: a cgroup left frozen is thawed; a missing one or a bad path is nothing") {
  auto v1 = FakeCgroupOs::v1();
  auto m1 = manager(v1);
  REQUIRE(m1->create(kContainer, LinuxResources{}).is_ok());
  const std::string state = kRoot + "/freezer/" + kContainer + "/freezer.state";
  v1->set(state, "FROZEN");
  m1->thaw(kContainer);
  CHECK(v1->file(state) == "THAWED");

  auto v2 = FakeCgroupOs::v2();
  auto m2 = manager(v2);
  REQUIRE(m2->create(kContainer, LinuxResources{}).is_ok());
  REQUIRE(v2->write(kRoot + "/" + kContainer + "/cgroup.freeze", "1") == 0);
  m2->thaw(kContainer);
  CHECK(v2->file(kRoot + "/" + kContainer + "/cgroup.freeze") == "0");

  m2->thaw("kubepods/none");  // no such cgroup: nothing happens
  m2->thaw("../escape");
  CHECK_FALSE(v2->has(kRoot + "/kubepods/none"));
}

}  // namespace
}  // namespace k3c::runtime

// The cgroup manager on this machine's real cgroups (root only): limits land in the kernel's
// files, a forked child put into the cgroup shows up in the stats, the pids and memory limits
// bite (fork fails, the OOM killer counts), kill_all ends the whole tree and remove leaves
// nothing. Every test cgroup is named k3c-test-<pid>-<n> and removed by a guard, also when a
// check fails; leftovers of a crashed earlier run (dead <pid>) are removed first.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "runtime/cgroups/cgroup_manager.h"

namespace k3c::runtime {
namespace {

// What the forked child does once it is in its cgroup.
enum class Work { kBusy, kForkBomb, kOom };

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string out = s.str();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Child side: only async-signal-safe calls and raw syscalls after fork().
[[noreturn]] void child_main(int go_fd, int report_fd, Work work) {
  char byte;
  if (::read(go_fd, &byte, 1) != 1) _exit(2);
  if (work == Work::kForkBomb) {
    // pids.max = 3 counts this process: two forks succeed, the rest fail with EAGAIN.
    char forks = 0;
    for (int i = 0; i < 4; ++i) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        for (;;) ::pause();
      }
      if (pid > 0) ++forks;
    }
    if (::write(report_fd, &forks, 1) != 1) _exit(3);
    for (;;) ::pause();
  }
  // 8 MiB touched for kBusy; 256 MiB against a 32 MiB limit for kOom.
  const size_t size = work == Work::kOom ? (256u << 20) : (8u << 20);
  auto* mem = static_cast<char*>(
      ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (mem == MAP_FAILED) _exit(4);
  for (size_t i = 0; i < size; i += 4096) mem[i] = 1;
  // Burn ~50 ms of CPU so the usage counter moves.
  timespec start, now;
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
  do {
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 50000000L);
  char ready = 1;
  if (::write(report_fd, &ready, 1) != 1) _exit(5);
  for (;;) ::pause();
}

// A test cgroup and the child in it; the destructor kills and removes whatever is left.
class HostCgroup {
 public:
  HostCgroup(CgroupManager& m, std::string path) : m_(m), path_(std::move(path)) {}
  ~HostCgroup() {
    if (child_ > 0) {
      ::kill(child_, SIGKILL);
      ::waitpid(child_, nullptr, 0);
    }
    Status killed = m_.kill_all(path_);
    Status removed = m_.remove(path_);
    if (!killed.is_ok() || !removed.is_ok()) {
      WARN("cleanup of " << path_ << ": " << killed.to_string() << " / " << removed.to_string());
    }
  }
  const std::string& path() const { return path_; }

  // Forks a child, writes it into every procs file, then lets it run `work`.
  void start(Work work) {
    int go[2], report[2];
    REQUIRE(::pipe2(go, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(report, O_CLOEXEC) == 0);
    child_ = ::fork();
    REQUIRE(child_ >= 0);
    if (child_ == 0) child_main(go[0], report[1], work);
    ::close(go[0]);
    ::close(report[1]);
    report_fd_ = report[0];
    for (const std::string& procs : m_.procs_files(path_)) {
      std::ofstream out(procs);
      out << child_ << "\n";
      out.flush();
      INFO(procs);
      REQUIRE(out.good());
    }
    REQUIRE(::write(go[1], "g", 1) == 1);
    ::close(go[1]);
  }

  // The child's one-byte report, or -1 when it died or said nothing within 10 s.
  int report() {
    pollfd p{report_fd_, POLLIN, 0};
    if (::poll(&p, 1, 10000) != 1) return -1;
    char byte;
    return ::read(report_fd_, &byte, 1) == 1 ? byte : -1;
  }

  // The child's wait status once it has ended (it is expected to be killed). A child still
  // alive after 10 s is killed here and the check fails, rather than the test hanging.
  int reap() {
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 1000 && done == 0; ++i) {
      done = ::waitpid(child_, &status, WNOHANG);
      if (done == 0) ::usleep(10000);
    }
    if (done == 0) {
      ::kill(child_, SIGKILL);
      ::waitpid(child_, &status, 0);
      FAIL_CHECK("the child was still running 10 s after it should have been killed");
    }
    child_ = -1;
    ::close(report_fd_);
    return status;
  }

 private:
  CgroupManager& m_;
  std::string path_;
  pid_t child_ = -1;
  int report_fd_ = -1;
};

// The manager on this host, or null (with the reason given) when the test cannot run here.
std::unique_ptr<CgroupManager> host_manager(const std::string& root = "/sys/fs/cgroup") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to create cgroups");
    return nullptr;
  }
  auto m = CgroupManager::detect(root);
  if (!m.is_ok()) {
    WARN("skipped: " << m.status().to_string());
    return nullptr;
  }
  // Leftovers of an earlier run that crashed before its guard ran.
  if (auto top = (*m)->children(""); top.is_ok()) {
    for (const std::string& name : *top) {
      pid_t owner = 0;
      if (std::sscanf(name.c_str(), "k3c-test-%d-", &owner) == 1 && owner > 0 &&
          ::kill(owner, 0) != 0 && errno == ESRCH) {
        Status k = (*m)->kill_all(name), r = (*m)->remove(name);
        (void)k, (void)r;  // best effort; a failure shows up when the name is reused
      }
    }
  }
  return std::move(m).value();
}

std::string unique_name() {
  static int n = 0;
  return "k3c-test-" + std::to_string(::getpid()) + "-" + std::to_string(++n);
}

// Creates the cgroup; false (with a warning) when the hierarchy refuses us.
bool create_or_skip(CgroupManager& m, const std::string& path, const LinuxResources& r) {
  Status s = m.create(path, r);
  if (s.code() == Code::kForbidden) {
    WARN("skipped: the cgroup hierarchy is not writable: " << s.message());
    return false;
  }
  REQUIRE(s.to_string() == Status().to_string());
  return true;
}

bool gone_everywhere(const CgroupManager& m, const std::string& path) {
  for (const std::string& procs : m.procs_files(path)) {
    if (::access(procs.substr(0, procs.rfind('/')).c_str(), F_OK) == 0) return false;
  }
  return true;
}

TEST_CASE("host cgroups: limits, a child's stats, kill_all and remove") {
  auto m = host_manager();
  if (!m) return;
  LinuxResources r;
  r.cpu_shares = 512;
  r.cpu_quota_us = 50000;
  r.memory_limit_bytes = 64 << 20;
  r.pids_limit = 16;
  const std::string parent = unique_name();
  {
    HostCgroup pod(*m, parent);
    HostCgroup cg(*m, parent + "/c1");
    if (!create_or_skip(*m, cg.path(), r)) return;
    INFO(m->describe());
    const std::string leaf = m->procs_files(cg.path()).front();
    const std::string dir = leaf.substr(0, leaf.rfind('/'));
    if (m->unified()) {
      CHECK(read_text(dir + "/cpu.max") == "50000 100000");
      CHECK(read_text(dir + "/cpu.weight") == "20");
      CHECK(read_text(dir + "/memory.max") == "67108864");
      CHECK(read_text(dir + "/pids.max") == "16");
    } else {
      for (const std::string& procs : m->procs_files(cg.path())) {
        const std::string d = procs.substr(0, procs.rfind('/'));
        if (::access((d + "/cpu.shares").c_str(), F_OK) == 0) {
          CHECK(read_text(d + "/cpu.shares") == "512");
          CHECK(read_text(d + "/cpu.cfs_quota_us") == "50000");
        }
        if (::access((d + "/memory.limit_in_bytes").c_str(), F_OK) == 0)
          CHECK(read_text(d + "/memory.limit_in_bytes") == "67108864");
        if (::access((d + "/pids.max").c_str(), F_OK) == 0)
          CHECK(read_text(d + "/pids.max") == "16");
      }
    }

    cg.start(Work::kBusy);
    REQUIRE(cg.report() == 1);
    auto s = m->stats(cg.path());
    REQUIRE(s.is_ok());
    CHECK(s->pids_current == 1);
    CHECK(s->memory_usage_bytes >= (8u << 20));
    CHECK(s->memory_working_set_bytes >= (8u << 20));
    CHECK(s->cpu_usage_nanos >= 40000000u);
    CHECK(s->oom_kills == 0);
    // The parent sees its child's usage.
    CHECK(m->stats(parent)->memory_usage_bytes >= s->memory_usage_bytes);
    CHECK(*m->children(parent) == std::vector<std::string>{"c1"});

    // A memory limit below what the child holds is refused, the old limit stays.
    LinuxResources tight = r;
    tight.memory_limit_bytes = 4 << 20;
    Status refused = m->update(cg.path(), tight);
    CHECK(refused.code() == Code::kInvalid);
    CHECK(refused.message().find("below the current usage") != std::string::npos);

    REQUIRE(m->kill_all(parent).is_ok());
    const int status = cg.reap();
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    REQUIRE(m->remove(parent).is_ok());
    CHECK(gone_everywhere(*m, cg.path()));
    CHECK(gone_everywhere(*m, parent));
  }
  CHECK(gone_everywhere(*m, parent));
}

TEST_CASE("host cgroups: the pids limit stops forks and kill_all ends the grandchildren") {
  auto m = host_manager();
  if (!m) return;
  LinuxResources r;
  r.pids_limit = 3;
  HostCgroup cg(*m, unique_name());
  if (!create_or_skip(*m, cg.path(), r)) return;
  cg.start(Work::kForkBomb);
  CHECK(cg.report() == 2);
  CHECK(m->stats(cg.path())->pids_current == 3);
  REQUIRE(m->kill_all(cg.path()).is_ok());
  cg.reap();
  // The grandchildren are not ours to reap; remove() waits for them to leave.
  REQUIRE(m->remove(cg.path()).is_ok());
  CHECK(gone_everywhere(*m, cg.path()));
}

TEST_CASE("host cgroups: exceeding the memory limit is an OOM kill the stats count") {
  auto m = host_manager();
  if (!m) return;
  LinuxResources r;
  r.memory_limit_bytes = 32 << 20;
  HostCgroup cg(*m, unique_name());
  if (!create_or_skip(*m, cg.path(), r)) return;
  cg.start(Work::kOom);
  CHECK(cg.report() == -1);  // killed before it could report
  const int status = cg.reap();
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  auto s = m->stats(cg.path());
  REQUIRE(s.is_ok());
  CHECK(s->oom_kills >= 1);
  REQUIRE(m->remove(cg.path()).is_ok());
}

TEST_CASE("host cgroups: the v2 hierarchy of a hybrid host (cgroup.kill, missing controllers)") {
  if (::access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK) != 0) {
    WARN("skipped: no cgroup2 hierarchy at /sys/fs/cgroup/unified (not a hybrid host)");
    return;
  }
  auto m = host_manager("/sys/fs/cgroup/unified");
  if (!m) return;
  REQUIRE(m->unified());
  HostCgroup cg(*m, unique_name());
  LinuxResources r;
  r.memory_limit_bytes = 1 << 30;
  if (m->controllers().empty()) {
    Status s = m->create(cg.path(), r);
    CHECK(s.code() == Code::kInvalid);
    CHECK(s.message().find("\"memory\" is not available") != std::string::npos);
  }
  if (!create_or_skip(*m, cg.path(), LinuxResources{})) return;
  cg.start(Work::kBusy);
  REQUIRE(cg.report() == 1);
  auto s = m->stats(cg.path());
  REQUIRE(s.is_ok());
  CHECK(s->cpu_usage_nanos >= 40000000u);  // cpu.stat exists in every v2 cgroup
  REQUIRE(m->kill_all(cg.path()).is_ok());
  CHECK(WTERMSIG(cg.reap()) == SIGKILL);
  REQUIRE(m->remove(cg.path()).is_ok());
  CHECK(gone_everywhere(*m, cg.path()));
}

}  // namespace
}  // namespace k3c::runtime

// Pure pieces of the shim: the CRI log format, capability names, the PATH lookup and the
// state files. The processes themselves are tested in shim_test.cpp (integration.shim).
#include <fcntl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/shim/container_init.h"
#include "runtime/shim/cri_log.h"
#include "runtime/shim/identity.h"
#include "runtime/shim/rootfs_mounts.h"
#include "runtime/shim/seccomp_profile.h"
#include "runtime/shim/state_files.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

std::string shim_slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("rfc3339_nano formats as Go's time.RFC3339Nano in UTC") {
  CHECK(rfc3339_nano(0) == "1970-01-01T00:00:00Z");
  CHECK(rfc3339_nano(1700000000123456789) == "2023-11-14T22:13:20.123456789Z");
  CHECK(rfc3339_nano(1700000000120000000) == "2023-11-14T22:13:20.12Z");
  CHECK(rfc3339_nano(1700000000000000001) == "2023-11-14T22:13:20.000000001Z");
}

TEST_CASE("CriLogStream writes F records per line, P records for long lines") {
  TempDir dir;
  const std::string path = dir.path() + "/0.log";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  REQUIRE(fd >= 0);
  CriLogStream out("stdout"), err("stderr");
  out.set_fd(fd);
  err.set_fd(fd);
  const int64_t t = 1700000000500000000;
  out.feed("hel", t);
  out.feed("lo\nwor", t);
  err.feed("oops\n\n", t);
  out.feed("ld\n", t);
  const std::string long_line(CriLogStream::kMaxLine + 10, 'x');
  out.feed(long_line + "\n", t);
  out.feed(std::string(CriLogStream::kMaxLine, 'y') + "\n", t);  // exactly fits: one F
  out.feed("no newline", t);
  out.finish(t);
  err.finish(t);  // nothing pending: nothing written
  close(fd);
  const std::string ts = "2023-11-14T22:13:20.5Z";
  const std::string expected =
      ts + " stdout F hello\n" + ts + " stderr F oops\n" + ts + " stderr F \n" + ts +
      " stdout F world\n" + ts + " stdout P " + std::string(CriLogStream::kMaxLine, 'x') + "\n" +
      ts + " stdout F xxxxxxxxxx\n" + ts + " stdout F " + std::string(CriLogStream::kMaxLine, 'y') +
      "\n" + ts + " stdout F no newline\n";
  CHECK(shim_slurp(path) == expected);
}

TEST_CASE("capability names: CAP_ prefix optional, ALL, unknown rejected") {
  using shim::capability_mask;
  CHECK(*capability_mask({"CAP_CHOWN", "kill", "NET_BIND_SERVICE"}, 40) ==
        ((1u << 0) | (1u << 5) | (1u << 10)));
  CHECK(*capability_mask({}, 40) == 0);
  CHECK(*capability_mask({"ALL"}, 40) == (uint64_t{1} << 41) - 1);
  auto bad = capability_mask({"CAP_FLY"}, 40);
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().code() == Code::kInvalid);
  CHECK(bad.status().message() == "unknown capability \"CAP_FLY\"");
  // A capability the running kernel does not know is unknown too.
  CHECK_FALSE(capability_mask({"CAP_CHECKPOINT_RESTORE"}, 39).is_ok());
}

TEST_CASE("find_executable searches $PATH and words errors as runc") {
  TempDir dir;
  const std::string bin = dir.path() + "/bin", sbin = dir.path() + "/sbin";
  mkdir(bin.c_str(), 0755);
  mkdir(sbin.c_str(), 0755);
  for (const std::string& f : {bin + "/tool", sbin + "/plain"}) {
    std::ofstream(f) << "#!/bin/sh\n";
  }
  chmod((bin + "/tool").c_str(), 0755);
  const std::vector<std::string> env = {"A=b", "PATH=" + sbin + ":" + bin};
  CHECK(*shim::find_executable("tool", env) == bin + "/tool");
  auto missing = shim::find_executable("plain", env);  // not executable
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().code() == Code::kInvalid);
  CHECK(missing.status().message() == "exec: \"plain\": executable file not found in $PATH");
  CHECK(*shim::find_executable(bin + "/tool", {}) == bin + "/tool");
  auto absent = shim::find_executable("/nope/x", env);
  REQUIRE_FALSE(absent.is_ok());
  CHECK(absent.status().message() == "exec: \"/nope/x\": stat /nope/x: No such file or directory");
}

TEST_CASE("exited_before_exec tells a process that died during setup from one that exec'd") {
  const auto child = [](bool exec) {
    const pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_NAME, shim::kInitComm, 0, 0, 0);
      if (exec) execl("/bin/true", "true", nullptr);
      _exit(127);
    }
    return pid;
  };
  siginfo_t info{};
  const pid_t died = child(false);
  REQUIRE(waitid(P_PID, died, &info, WEXITED | WNOWAIT) == 0);  // a zombie named k3c-init
  CHECK(shim::exited_before_exec(died));
  waitpid(died, nullptr, 0);
  const pid_t execd = child(true);
  REQUIRE(waitid(P_PID, execd, &info, WEXITED | WNOWAIT) == 0);  // a zombie named "true"
  CHECK_FALSE(shim::exited_before_exec(execd));
  waitpid(execd, nullptr, 0);
}

TEST_CASE("launch spec and state records survive a round trip through their files") {
  LaunchSpec spec;
  spec.id = "c1";
  spec.state_dir = "/run/x";
  spec.lower_dirs = {"/a", "/b"};
  spec.mounts = {{"/host", "/data", true, false}};
  spec.net = {NamespaceMode::kJoin, "/run/netns/p"};
  spec.pid.mode = NamespaceMode::kHost;
  spec.process.args = {"sh", "-c", "echo"};
  spec.process.uid = 1000;
  spec.process.groups = {1, 2};
  spec.process.capabilities = {"CAP_CHOWN"};
  spec.process.seccomp = SeccompProfile::kLocalhost;
  spec.process.seccomp_profile = R"({"defaultAction": "SCMP_ACT_ALLOW"})";
  spec.cgroup_procs_files = {"/sys/fs/cgroup/x/cgroup.procs"};
  spec.oom_score_adj = -997;
  auto back = shim::decode_launch_spec(shim::encode_launch_spec(spec));
  REQUIRE(back.is_ok());
  CHECK(shim::encode_launch_spec(*back) == shim::encode_launch_spec(spec));
  CHECK(back->net.mode == NamespaceMode::kJoin);
  CHECK(back->mounts[0].read_only);
  CHECK(back->process.groups == std::vector<uint32_t>{1, 2});
  CHECK(back->oom_score_adj == -997);
  CHECK(shim::decode_launch_spec("{\"id\": 1}").status().code() == Code::kCorrupt);
  // stdin_once round-trips; a process spec written by an older k3c (no such key) reads false.
  spec.process.stdin_once = true;
  CHECK(shim::decode_process_spec(shim::encode_process_spec(spec.process))->stdin_once);
  auto old = nlohmann::json::parse(shim::encode_process_spec(spec.process));
  old.erase("stdin_once");
  auto decoded = shim::decode_process_spec(old.dump());
  REQUIRE(decoded.is_ok());
  CHECK_FALSE(decoded->stdin_once);

  TempDir dir;
  REQUIRE(shim::write_start_record(dir.path(), {10, 11, 12, 13}).is_ok());
  auto start = shim::read_start_record(dir.path());
  REQUIRE(start.is_ok());
  CHECK(start->shim_pid == 10);
  CHECK(start->pid == 11);
  CHECK(start->started_at_ns == 12);
  CHECK(start->start_ticks == 13);
  CHECK(shim::process_start_ticks(getpid()) > 0);
  CHECK(shim::process_start_ticks(getpid()) == shim::process_start_ticks(getpid()));
  CHECK(shim::process_start_ticks(1 << 30) == 0);  // no such pid
  CHECK(shim::read_exit_record(dir.path()).status().code() == Code::kNotFound);
  REQUIRE(shim::write_exit_record(dir.path(), {137, 9, 42}).is_ok());
  auto exit = shim::read_exit_record(dir.path());
  REQUIRE(exit.is_ok());
  CHECK(exit->exit_code == 137);
  CHECK(exit->signal == 9);
  CHECK(exit->finished_at_ns == 42);
}

TEST_CASE("overlay options list the lower dirs top first and refuse separators") {
  LaunchSpec spec;
  spec.state_dir = "/s";
  spec.lower_dirs = {"/top", "/bottom"};
  CHECK(*shim::overlay_options(spec) == "lowerdir=/top:/bottom,upperdir=/s/upper,workdir=/s/work");
  spec.lower_dirs = {"/a,b"};
  CHECK(shim::overlay_options(spec).status().code() == Code::kInvalid);
  spec.lower_dirs = {};
  CHECK(shim::overlay_options(spec).status().code() == Code::kInvalid);
}

}  // namespace k3c::runtime

namespace k3c::runtime {
namespace {

// A BPF program as bytes, to compare two.
std::string bytes(const std::vector<sock_filter>& program) {
  return std::string(reinterpret_cast<const char*>(program.data()),
                     program.size() * sizeof(sock_filter));
}

// Runs `body` in a child with `profile` installed (no_new_privs, so no privilege is needed);
// returns the child's exit code.
int run_confined(const std::string& profile, int (*body)()) {
  auto program = shim::compile_seccomp_profile(profile, 0);
  INFO(program.status().to_string());
  REQUIRE(program.is_ok());
  const pid_t pid = fork();
  if (pid == 0) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(100);
    if (!shim::install_seccomp_filter(*program).is_ok()) _exit(101);
    _exit(body());
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("seccomp profiles compile with libseccomp; RuntimeDefault grows with CAP_SYS_ADMIN") {
  auto plain = shim::compile_seccomp_profile(shim::runtime_default_profile(), 0);
  INFO(plain.status().to_string());
  REQUIRE(plain.is_ok());
  auto admin = shim::compile_seccomp_profile(shim::runtime_default_profile(), uint64_t{1} << 21);
  REQUIRE(admin.is_ok());
  CHECK(plain->size() > 50);
  CHECK(bytes(*admin) != bytes(*plain));
  ProcessSpec process;
  CHECK_FALSE(shim::seccomp_filter_for(process, 0)->has_value());  // Unconfined
  process.seccomp = SeccompProfile::kRuntimeDefault;
  CHECK(bytes(**shim::seccomp_filter_for(process, 0)) == bytes(*plain));
}

TEST_CASE("a seccomp profile's rules, arguments and unknown names act as in runc") {
  // mkdir refused with EACCES; personality(8) or personality(0x20000) refused with EINVAL
  // (two conditions on one argument are alternatives); a name this architecture lacks is
  // skipped.
  const std::string profile = R"({
    "defaultAction": "SCMP_ACT_ALLOW",
    "syscalls": [
      {"names": ["no_such_call", "mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13},
      {"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 22,
       "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"},
                {"index": 0, "value": 131072, "op": "SCMP_CMP_EQ"}]}
    ]})";
  CHECK(run_confined(profile, [] { return mkdir("/tmp", 0700) == 0 ? 0 : errno; }) == EACCES);
  CHECK(run_confined(profile, [] { return personality(8) >= 0 ? 0 : errno; }) == EINVAL);
  CHECK(run_confined(profile, [] { return personality(0x20000) >= 0 ? 0 : errno; }) == EINVAL);
  CHECK(run_confined(profile, [] { return personality(0xffffffff) >= 0 ? 0 : errno; }) == 0);
  // The default action with its errno.
  const std::string deny = R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
    "syscalls": [{"names": ["exit_group", "exit", "getpid"], "action": "SCMP_ACT_ALLOW"}]})";
  CHECK(run_confined(deny, [] { return syscall(SYS_getppid) >= 0 ? 0 : errno; }) == ENOSYS);
  CHECK(run_confined(deny, [] { return getpid() > 0 ? 0 : errno; }) == 0);
}

TEST_CASE("SeccompPrograms compiles a profile once; the program travels in the process spec") {
  shim::SeccompPrograms programs;
  ProcessSpec process;
  CHECK(programs.compile_into(process).is_ok());
  CHECK(process.seccomp_program.empty());  // Unconfined
  process.seccomp = SeccompProfile::kRuntimeDefault;
  process.capabilities = {"CAP_KILL"};
  REQUIRE(programs.compile_into(process).is_ok());
  auto direct = shim::compile_seccomp_profile(shim::runtime_default_profile(), uint64_t{1} << 5);
  REQUIRE(direct.is_ok());
  CHECK(process.seccomp_program == bytes(*direct));
  // The filter a process installs is the program it carries, also after its state file.
  auto back = shim::decode_process_spec(shim::encode_process_spec(process));
  REQUIRE(back.is_ok());
  CHECK(bytes(**shim::seccomp_filter_for(*back, 0)) == bytes(*direct));
  // Another capability set is another program; the same one comes from the cache, fast.
  ProcessSpec admin = process;
  admin.capabilities = {"CAP_SYS_ADMIN"};
  REQUIRE(programs.compile_into(admin).is_ok());
  CHECK(admin.seccomp_program != process.seccomp_program);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) REQUIRE(programs.compile_into(process).is_ok());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200));
  ProcessSpec torn = process;
  torn.seccomp_program.pop_back();
  CHECK(shim::seccomp_filter_for(torn, 0).status().code() == Code::kCorrupt);
}

TEST_CASE("a seccomp rule applies by the capabilities it includes or excludes") {
  const std::string profile = R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
    {"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13,
     "excludes": {"caps": ["CAP_SYS_ADMIN"]}}]})";
  auto without = shim::compile_seccomp_profile(profile, 0);
  auto with = shim::compile_seccomp_profile(profile, uint64_t{1} << 21);
  auto allow_all = shim::compile_seccomp_profile(R"({"defaultAction": "SCMP_ACT_ALLOW"})", 0);
  REQUIRE(without.is_ok());
  REQUIRE(with.is_ok());
  CHECK(bytes(*with) == bytes(*allow_all));  // the rule is left out
  CHECK(bytes(*without) != bytes(*allow_all));
}

TEST_CASE("a malformed seccomp profile is refused with what is wrong") {
  const auto message = [](const std::string& profile) {
    auto program = shim::compile_seccomp_profile(profile, 0);
    return program.is_ok() ? std::string("ok") : program.status().message();
  };
  const std::string rule_start = R"({"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [)";
  CHECK(message("{").find("not JSON") != std::string::npos);
  CHECK(message("[]") == "seccomp profile: not a JSON object");
  CHECK(message("{}") == "seccomp profile: no defaultAction");
  CHECK(message(R"({"defaultAction": "SCMP_ACT_MAYBE"})") ==
        "seccomp profile: unknown action \"SCMP_ACT_MAYBE\"");
  CHECK(message(R"({"defaultAction": "SCMP_ACT_ERRNO", "architectures": ["SCMP_ARCH_VAX"]})") ==
        "seccomp profile: unknown architecture \"SCMP_ARCH_VAX\"");
  CHECK(message(rule_start + R"({"names": ["read"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_ABOUT"}]}]})") ==
        "seccomp profile: unknown argument operator \"SCMP_CMP_ABOUT\"");
  CHECK(message(rule_start + R"({"names": ["read"], "action": "SCMP_ACT_ALLOW",
      "args": [{"index": 6, "value": 1, "op": "SCMP_CMP_EQ"}]}]})") ==
        "seccomp profile: an argument index must be 0 to 5");
  CHECK(message(rule_start + R"({"names": ["read"], "action": "SCMP_ACT_ALLOW",
      "includes": {"caps": ["CAP_FLY"]}}]})") == "seccomp profile: unknown capability \"CAP_FLY\"");
  CHECK(message(rule_start + R"("read"]})") ==
        "seccomp profile: a syscalls entry is not an object");
  // A names (or caps) value of the wrong type is refused, not dropped: the rule would filter
  // nothing.
  CHECK(message(rule_start + R"({"names": "mkdir", "action": "SCMP_ACT_ALLOW"}]})") ==
        "seccomp profile: names is not a list of strings");
  CHECK(message(rule_start + R"({"names": ["read", 3], "action": "SCMP_ACT_ALLOW"}]})") ==
        "seccomp profile: names is not a list of strings");
  CHECK(message(rule_start + R"({"names": ["read"], "action": "SCMP_ACT_ALLOW",
      "includes": {"caps": "CAP_SYS_ADMIN"}}]})") ==
        "seccomp profile: caps is not a list of strings");
  auto notify = shim::compile_seccomp_profile(
      rule_start + R"({"names": ["read"], "action": "SCMP_ACT_NOTIFY"}]})", 0);
  CHECK(notify.status().code() == Code::kNotImplemented);
  // A Localhost profile that does not compile fails the container's creation.
  ProcessSpec process;
  process.seccomp = SeccompProfile::kLocalhost;
  process.seccomp_profile = "{}";
  shim::SeccompPrograms programs;
  CHECK(programs.compile_into(process).message() ==
        "failed to generate seccomp spec opts: seccomp profile: no defaultAction");
  CHECK(shim::load_seccomp_profile("/nonexistent/x.json")
            .status()
            .message()
            .rfind("failed to generate seccomp spec opts: cannot load seccomp profile "
                   "\"/nonexistent/x.json\": open /nonexistent/x.json",
                   0) == 0);
}

}  // namespace k3c::runtime

namespace k3c::runtime {

// Not a test: the cost of compiling RuntimeDefault, which SeccompPrograms pays once per k3c
// process and capability set. `k3c_runtime_test "[.bench]"`.
TEST_CASE("seccomp RuntimeDefault compile time", "[.bench]") {
  std::vector<double> ms;
  size_t size = 0;
  for (int i = 0; i < 41; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto program = shim::compile_seccomp_profile(shim::runtime_default_profile(), 0);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
    REQUIRE(program.is_ok());
    size = program->size();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("compile RuntimeDefault (%zu BPF instructions): median %.2f ms, p90 %.2f ms\n", size,
              ms[20], ms[36]);
}

}  // namespace k3c::runtime

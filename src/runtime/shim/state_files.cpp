// The state directory's files (see state_files.h).
#include "runtime/shim/state_files.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "runtime/files.h"
#include "runtime/seccomp_profile_json.h"

namespace k3c::runtime::shim {
namespace {

using nlohmann::json;

constexpr size_t kMaxFile = 1 << 20;

json ns_to_json(const NamespaceSetting& ns) {
  const char* mode = ns.mode == NamespaceMode::kNew    ? "new"
                     : ns.mode == NamespaceMode::kHost ? "host"
                                                       : "join";
  return {{"mode", mode}, {"path", ns.path}};
}

NamespaceSetting ns_from_json(const json& j) {
  NamespaceSetting ns;
  const std::string mode = j.at("mode").get<std::string>();
  ns.mode = mode == "host"   ? NamespaceMode::kHost
            : mode == "join" ? NamespaceMode::kJoin
                             : NamespaceMode::kNew;
  ns.path = j.at("path").get<std::string>();
  return ns;
}

json process_to_json(const ProcessSpec& p) {
  return {{"args", p.args},
          {"env", p.env},
          {"cwd", p.cwd},
          {"uid", p.uid},
          {"gid", p.gid},
          {"groups", p.groups},
          {"capabilities", p.capabilities},
          {"no_new_privs", p.no_new_privs},
          {"seccomp", p.seccomp},
          {"seccomp_profile", p.seccomp_profile},
          {"seccomp_program", base64_encode(p.seccomp_program)},
          {"tty", p.tty},
          {"stdin", p.stdin},
          {"stdin_once", p.stdin_once}};
}

ProcessSpec process_from_json(const json& j) {
  ProcessSpec p;
  p.args = j.at("args").get<std::vector<std::string>>();
  p.env = j.at("env").get<std::vector<std::string>>();
  p.cwd = j.at("cwd").get<std::string>();
  p.uid = j.at("uid").get<uint32_t>();
  p.gid = j.at("gid").get<uint32_t>();
  p.groups = j.at("groups").get<std::vector<uint32_t>>();
  p.capabilities = j.at("capabilities").get<std::vector<std::string>>();
  p.no_new_privs = j.at("no_new_privs").get<bool>();
  p.seccomp = j.at("seccomp").get<SeccompProfile>();
  p.seccomp_profile = j.value("seccomp_profile", "");  // absent in specs of older k3c versions
  p.seccomp_program = base64_decode(j.value("seccomp_program", "")).value_or("");
  p.tty = j.at("tty").get<bool>();
  p.stdin = j.at("stdin").get<bool>();
  p.stdin_once = j.value("stdin_once", false);  // absent in specs of older k3c versions
  return p;
}

// nlohmann throws on malformed input; no exception leaves this file.
template <typename T, typename F>
Result<T> parse_state(const std::string& text, const char* what, F&& from) {
  try {
    return from(json::parse(text));
  } catch (const std::exception& e) {
    return error(Code::kCorrupt, std::string(what) + ": " + e.what());
  }
}

}  // namespace

Status write_spec_file(const std::string& dir, const LaunchSpec& spec) {
  return write_file_unsynced(dir + "/" + kSpecFile, encode_launch_spec(spec));
}

Status write_shim_pid_file(const std::string& dir, int pid) {
  return write_file_unsynced(dir + "/" + kShimPidFile, std::to_string(pid) + "\n");
}

std::string encode_process_spec(const ProcessSpec& process) {
  return process_to_json(process).dump();
}

Result<ProcessSpec> decode_process_spec(const std::string& text) {
  return parse_state<ProcessSpec>(text, "process spec", process_from_json);
}

std::string encode_launch_spec(const LaunchSpec& s) {
  json mounts = json::array();
  for (const Mount& m : s.mounts) {
    mounts.push_back({{"host_path", m.host_path},
                      {"container_path", m.container_path},
                      {"read_only", m.read_only},
                      {"recursive", m.recursive}});
  }
  return json{{"id", s.id},
              {"state_dir", s.state_dir},
              {"lower_dirs", s.lower_dirs},
              {"read_only_rootfs", s.read_only_rootfs},
              {"mounts", mounts},
              {"net", ns_to_json(s.net)},
              {"ipc", ns_to_json(s.ipc)},
              {"uts", ns_to_json(s.uts)},
              {"pid", ns_to_json(s.pid)},
              {"hostname", s.hostname},
              {"privileged", s.privileged},
              {"process", process_to_json(s.process)},
              {"cgroup_procs_files", s.cgroup_procs_files},
              {"log_path", s.log_path},
              {"shim_binary", s.shim_binary},
              {"oom_score_adj", s.oom_score_adj ? json(*s.oom_score_adj) : json(nullptr)}}
      .dump();
}

Result<LaunchSpec> decode_launch_spec(const std::string& text) {
  return parse_state<LaunchSpec>(text, "launch spec", [](const json& j) {
    LaunchSpec s;
    s.id = j.at("id").get<std::string>();
    s.state_dir = j.at("state_dir").get<std::string>();
    s.lower_dirs = j.at("lower_dirs").get<std::vector<std::string>>();
    s.read_only_rootfs = j.at("read_only_rootfs").get<bool>();
    for (const json& m : j.at("mounts")) {
      s.mounts.push_back({m.at("host_path").get<std::string>(),
                          m.at("container_path").get<std::string>(), m.at("read_only").get<bool>(),
                          m.at("recursive").get<bool>()});
    }
    s.net = ns_from_json(j.at("net"));
    s.ipc = ns_from_json(j.at("ipc"));
    s.uts = ns_from_json(j.at("uts"));
    s.pid = ns_from_json(j.at("pid"));
    s.hostname = j.at("hostname").get<std::string>();
    s.privileged = j.at("privileged").get<bool>();
    s.process = process_from_json(j.at("process"));
    s.cgroup_procs_files = j.at("cgroup_procs_files").get<std::vector<std::string>>();
    s.log_path = j.at("log_path").get<std::string>();
    s.shim_binary = j.at("shim_binary").get<std::string>();
    if (!j.at("oom_score_adj").is_null()) s.oom_score_adj = j.at("oom_score_adj").get<int>();
    return s;
  });
}

Status write_start_record(const std::string& dir, const StartRecord& r) {
  const json j{{"shim_pid", r.shim_pid},
               {"pid", r.pid},
               {"started_at_ns", r.started_at_ns},
               {"start_ticks", r.start_ticks}};
  return write_file_unsynced(dir + "/" + kStateFile, j.dump() + "\n");
}

Result<StartRecord> read_start_record(const std::string& dir) {
  ASSIGN_OR_RETURN(std::string text, read_file(dir + "/" + kStateFile, kMaxFile));
  return parse_state<StartRecord>(text, kStateFile, [](const json& j) {
    return StartRecord{j.at("shim_pid").get<int>(), j.at("pid").get<int>(),
                       j.at("started_at_ns").get<int64_t>(), j.at("start_ticks").get<uint64_t>()};
  });
}

Status write_exit_record(const std::string& dir, const ExitRecord& r) {
  const json j{
      {"exit_code", r.exit_code}, {"signal", r.signal}, {"finished_at_ns", r.finished_at_ns}};
  return write_file_unsynced(dir + "/" + kExitFile, j.dump() + "\n");
}

Result<ExitRecord> read_exit_record(const std::string& dir) {
  ASSIGN_OR_RETURN(std::string text, read_file(dir + "/" + kExitFile, kMaxFile));
  return parse_state<ExitRecord>(text, kExitFile, [](const json& j) {
    return ExitRecord{j.at("exit_code").get<int>(), j.at("signal").get<int>(),
                      j.at("finished_at_ns").get<int64_t>()};
  });
}

Result<LaunchSpec> read_launch_spec(const std::string& dir) {
  ASSIGN_OR_RETURN(std::string text, read_file(dir + "/" + kSpecFile, kMaxFile));
  return decode_launch_spec(text);
}

uint64_t process_start_ticks(int pid) {
  auto stat = read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!stat.is_ok()) return 0;
  // "<pid> (<comm>) <state> <ppid> ...": fields after the comm (which may hold spaces and
  // parentheses) start at field 3; the start time is field 22.
  const size_t close = stat->rfind(')');
  if (close == std::string::npos) return 0;
  size_t pos = close + 1;
  for (int field = 3; field <= 22; ++field) {
    pos = stat->find_first_not_of(' ', pos);
    if (pos == std::string::npos) return 0;
    if (field == 3 && ((*stat)[pos] == 'Z' || (*stat)[pos] == 'X')) return 0;  // dead
    if (field == 22) return std::strtoull(stat->c_str() + pos, nullptr, 10);
    pos = stat->find(' ', pos);
    if (pos == std::string::npos) return 0;
  }
  return 0;
}

int64_t unix_nanos_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

WallTime wall_time_of(int64_t unix_nanos) {
  return WallTime(
      std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(unix_nanos)));
}

}  // namespace k3c::runtime::shim

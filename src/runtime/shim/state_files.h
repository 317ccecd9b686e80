// The files in a container's state directory (doc/runtime.md, "Containers and shims"):
//   spec.json   the LaunchSpec, written by launch_container before the shim starts
//   state.json  {shim_pid, pid, started_at_ns, start_ticks}, written by the shim once the
//               process exec'd
//   exit.json   {exit_code, signal, finished_at_ns}, written by the shim after the exit
//   shim.pid    the shim's pid, written first thing (for a launcher that times out)
//   upper/ work/ rootfs/   the overlay's upper and work dirs and its mount point
// Files are replaced atomically (temp file + rename, no fsync: they describe processes,
// which a power loss ends too), so a reader sees the old or the new content, never a torn
// file.
#pragma once

#include <string>

#include "core/status.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime::shim {

inline constexpr char kSpecFile[] = "spec.json";
inline constexpr char kStateFile[] = "state.json";
inline constexpr char kExitFile[] = "exit.json";
inline constexpr char kShimPidFile[] = "shim.pid";

std::string encode_launch_spec(const LaunchSpec& spec);
Result<LaunchSpec> decode_launch_spec(const std::string& json);
std::string encode_process_spec(const ProcessSpec& process);
Result<ProcessSpec> decode_process_spec(const std::string& json);

struct StartRecord {
  int shim_pid = 0;
  int pid = 0;
  int64_t started_at_ns = 0;
  // The process's start time in clock ticks after boot (/proc/<pid>/stat field 22): with the
  // pid, it names the process even after its shim is gone (pids are reused, this is not).
  uint64_t start_ticks = 0;
};

// The start time of `pid` (field 22 of /proc/<pid>/stat); 0 when there is no such process
// or it is a zombie.
uint64_t process_start_ticks(int pid);
struct ExitRecord {
  int exit_code = 0;
  int signal = 0;
  int64_t finished_at_ns = 0;
};

Status write_spec_file(const std::string& state_dir, const LaunchSpec& spec);
Status write_shim_pid_file(const std::string& state_dir, int pid);
Status write_start_record(const std::string& state_dir, const StartRecord& record);
Result<StartRecord> read_start_record(const std::string& state_dir);  // kNotFound if none
Status write_exit_record(const std::string& state_dir, const ExitRecord& record);
Result<ExitRecord> read_exit_record(const std::string& state_dir);  // kNotFound if none

Result<LaunchSpec> read_launch_spec(const std::string& state_dir);

int64_t unix_nanos_now();
WallTime wall_time_of(int64_t unix_nanos);

}  // namespace k3c::runtime::shim
